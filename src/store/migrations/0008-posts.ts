/**
 * Created the reference service's `posts` table. Those tables are the service's own now, made by
 * its migrations (decision 0045); the name stays, empty, because databases record it as applied
 * and Kysely refuses a list that lost a migration it ran.
 */
export async function up(): Promise<void> {}
