import type { Generated } from 'kysely';

/** The service's own tables, beside Gatehouse's in its database; made by `service-migrations.ts`. */
export interface ServiceTables {
  documents: DocumentsTable;
  organization_settings: OrganizationSettingsTable;
  posts: PostsTable;
  event_outbox: EventOutboxTable;
}

export interface DocumentsTable {
  id: Generated<number>;
  owner_id: number;
  title: string;
  body: string;
  created_at: number;
}

/** Keyed by Gatehouse's organization id. */
export interface OrganizationSettingsTable {
  organization_id: number;
  /** JSON object. */
  settings: string;
}

export interface PostsTable {
  id: Generated<number>;
  author_id: number;
  title: string;
  body: string;
  created_at: number;
}

/**
 * Events written in the transaction of the change they announce, published after it commits
 * (decision 0053): a row stays until housekeeping deletes it some time after it was published.
 */
export interface EventOutboxTable {
  id: Generated<number>;
  topic: string;
  /** JSON. */
  payload: string;
  created_at: number;
  /** Null until an instance has published it. */
  published_at: number | null;
  /** An instance's relay publishing it holds it until then; others leave it alone. */
  claimed_until: number | null;
}
