import type { FastifyInstance } from 'fastify';
import { registrationEndpoints } from '../../endpoints/registration/registration-endpoints.ts';
import type { PasswordReset } from '../../identity/password-reset.ts';
import type { Registration } from '../../identity/registration.ts';
import { registerEndpoints } from '../endpoint-route.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import type { RateLimitDependencies } from '../rate-limit.ts';

/** What registration, confirmation and reset use: their use cases, and where the routes are (the mails link to them). */
export interface AccountRegistrationRouteOptions extends RateLimitDependencies {
  readonly paths: MembershipPaths;
  readonly registration: Registration;
  readonly passwordReset: PasswordReset;
}

/**
 * Registration, e-mail confirmation and password reset (endpoints/registration/) on Fastify. Forms
 * are read only here and on the other account pages.
 */
export async function accountRegistrationRoutes(app: FastifyInstance, options: AccountRegistrationRouteOptions): Promise<void> {
  const { paths, registration, passwordReset, config } = options;
  // The mails' links lead back to these routes, wherever they are mounted.
  const links = paths.accountLinks(config.publicUrl);
  await registerEndpoints(app, registrationEndpoints({ config, pages: app.pages, paths, links, registration, passwordReset }), { limits: options });
}
