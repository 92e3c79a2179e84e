import type { AdminMessages } from './admin-messages.ts';

/** The admin console in English. */
export const enAdmin: AdminMessages = {
  adminNavLabel: 'Admin console',
};
