import type { Generated } from 'kysely';

/** The service's own tables, beside Gatehouse's in its database; made by `service-migrations.ts`. */
export interface ServiceTables {
  documents: DocumentsTable;
  organizations: OrganizationsTable;
  posts: PostsTable;
}

export interface DocumentsTable {
  id: Generated<number>;
  owner_id: number;
  title: string;
  body: string;
  created_at: number;
}

export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  /** JSON object. */
  settings: string;
  created_at: number;
}

export interface PostsTable {
  id: Generated<number>;
  author_id: number;
  title: string;
  body: string;
  created_at: number;
}
