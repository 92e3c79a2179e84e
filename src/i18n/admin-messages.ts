/** The texts of the admin console's pages (`/admin`), by key: the part of `Messages` they own. */
export interface AdminMessages {
  readonly adminNavLabel: string;
}
