import type { AdminMessages } from './admin-messages.ts';

/** The admin console in German, formal ("Sie"). */
export const deAdmin: AdminMessages = {
  adminNavLabel: 'Verwaltungskonsole',
};
