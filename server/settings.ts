import type { Config } from 'gatehouse-auth/fastify';

/** The window of the `BusinessHours` policy (`BUSINESS_HOURS`): minutes after midnight, both ends allowed. */
export type BusinessHours = Config['businessHours'];
