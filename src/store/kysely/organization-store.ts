import type { Organization, OrganizationStore } from '../ports.ts';
import type { StoreContext } from './store-context.ts';

/** Organizations; settings are a JSON object in a text column on both engines. */
export class KyselyOrganizationStore implements OrganizationStore {
  constructor(private readonly context: StoreContext) {}

  async create(organization: { name: string; createdAt: number }): Promise<Organization> {
    const row = await this.context.db
      .insertInto('organizations')
      .values({ name: organization.name, settings: '{}', created_at: organization.createdAt })
      .returning(['id', 'name', 'settings'])
      .executeTakeFirstOrThrow();
    return toOrganization(row);
  }

  async find(id: number): Promise<Organization | null> {
    const row = await this.context.db
      .selectFrom('organizations')
      .select(['id', 'name', 'settings'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toOrganization(row) : null;
  }

  async updateSettings(id: number, settings: Record<string, unknown>): Promise<Organization | null> {
    const row = await this.context.db
      .updateTable('organizations')
      .set({ settings: JSON.stringify(settings) })
      .where('id', '=', id)
      .returning(['id', 'name', 'settings'])
      .executeTakeFirst();
    return row ? toOrganization(row) : null;
  }
}

function toOrganization(row: { id: number; name: string; settings: string }): Organization {
  return { id: row.id, name: row.name, settings: JSON.parse(row.settings) as Record<string, unknown> };
}
