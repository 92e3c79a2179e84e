import type { Kysely } from 'kysely';
import type { ServiceTables } from './service-tables.ts';

/**
 * The settings of each organization: the service's own data about Gatehouse's organizations, a
 * JSON object in a text column on both engines. An organization without a row has `{}`; its row
 * goes with it (a foreign key that cascades).
 */
export class OrganizationSettingsStore {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  async settingsOf(organizationId: number): Promise<Record<string, unknown>> {
    const row = await this.db.selectFrom('organization_settings').select('settings').where('organization_id', '=', organizationId).executeTakeFirst();
    return row ? (JSON.parse(row.settings) as Record<string, unknown>) : {};
  }

  /** Replaces the settings as a whole (nothing is merged). */
  async replace(organizationId: number, settings: Record<string, unknown>): Promise<Record<string, unknown>> {
    const text = JSON.stringify(settings);
    await this.db
      .insertInto('organization_settings')
      .values({ organization_id: organizationId, settings: text })
      .onConflict((conflict) => conflict.column('organization_id').doUpdateSet({ settings: text }))
      .execute();
    return settings;
  }
}
