import type { Kysely } from 'kysely';
import type { ServiceTables } from './service-tables.ts';

export interface Organization {
  readonly id: number;
  readonly name: string;
  readonly settings: Readonly<Record<string, unknown>>;
}

/** Organizations; settings are a JSON object in a text column on both engines. */
export class OrganizationStore {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  async create(organization: { name: string; createdAt: number }): Promise<Organization> {
    const row = await this.db
      .insertInto('organizations')
      .values({ name: organization.name, settings: '{}', created_at: organization.createdAt })
      .returning(['id', 'name', 'settings'])
      .executeTakeFirstOrThrow();
    return toOrganization(row);
  }

  async find(id: number): Promise<Organization | null> {
    const row = await this.db.selectFrom('organizations').select(['id', 'name', 'settings']).where('id', '=', id).executeTakeFirst();
    return row ? toOrganization(row) : null;
  }

  /** Replaces the settings; null when there is no such organization. */
  async updateSettings(id: number, settings: Record<string, unknown>): Promise<Organization | null> {
    const row = await this.db
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
