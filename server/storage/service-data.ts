import type { ApplicationDatabase } from 'gatehouse-auth/store';
import { DocumentStore } from './document-store.ts';
import { EventOutboxStore } from './event-outbox-store.ts';
import { OrganizationSettingsStore } from './organization-store.ts';
import { PostStore, type Transaction } from './post-store.ts';
import type { ServiceTables } from './service-tables.ts';

/** The service's own data, in its tables beside Gatehouse's, on the store's connections. */
export interface ServiceData {
  readonly documents: DocumentStore;
  /** The settings of Gatehouse's organizations. */
  readonly organizationSettings: OrganizationSettingsStore;
  readonly posts: PostStore;
  readonly outbox: EventOutboxStore;
}

export function serviceData(database: ApplicationDatabase): ServiceData {
  const db = database.kysely<ServiceTables>();
  const outbox = new EventOutboxStore(db);
  const transaction: Transaction = (work) => database.transaction(work);
  const posts = new PostStore(db, transaction, outbox);
  return { documents: new DocumentStore(db), organizationSettings: new OrganizationSettingsStore(db), posts, outbox };
}
