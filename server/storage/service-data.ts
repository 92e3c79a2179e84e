import type { ApplicationDatabase } from 'gatehouse-auth/store';
import { DocumentStore } from './document-store.ts';
import { OrganizationStore } from './organization-store.ts';
import { PostStore } from './post-store.ts';
import type { ServiceTables } from './service-tables.ts';

/** The service's own data, in its tables beside Gatehouse's, on the store's connections. */
export interface ServiceData {
  readonly documents: DocumentStore;
  readonly organizations: OrganizationStore;
  readonly posts: PostStore;
}

export function serviceData(database: ApplicationDatabase): ServiceData {
  const db = database.kysely<ServiceTables>();
  return { documents: new DocumentStore(db), organizations: new OrganizationStore(db), posts: new PostStore(db) };
}
