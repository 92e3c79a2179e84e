/**
 * The role of the admin API (the group policy `AdminOnly`). The API keeps one holder of it who
 * can sign in: without one, only the CLI could administer the service again.
 */
export const ADMIN_ROLE = 'Admin';
