import type { TSchema } from '@sinclair/typebox';
import type { Config } from '../../config/config.ts';
import { AccountLockedError } from '../../identity/credential-checks.ts';
import { TwoFactorError } from '../../identity/two-factor/two-factor-manager.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { WordedFieldErrors } from '../../i18n/phrase.ts';
import type { Html } from '../../pages/html.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import type { Clock } from '../../platform/clock.ts';
import { type FieldErrors, GatehouseError } from '../../security/errors.ts';
import type { User } from '../../store/ports.ts';
import { accountLockedError } from '../account-locked.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest, type LimitedRequest, type ResponseCookie } from '../endpoint.ts';
import { fieldErrorsOf, formRefusal, isCallersError } from '../endpoint-answer.ts';
import { NO_STORE, noStore } from '../no-store.ts';
import { pageResponse } from '../page-response.ts';
import type { RecentSignInCheck } from '../recent-sign-in-check.ts';
import { signedInUser, signedInUserId } from '../signed-in-user.ts';
import { userAccount } from '../sign-in-limits.ts';

/** What an action adds to its page. */
export interface PageExtra {
  readonly recoveryCodes?: readonly string[];
  readonly notice?: string;
  readonly errors?: FieldErrors;
}

/** A page of the set-up area for the user as now stored, waiting for what the action adds (a notice, errors, codes). */
export type AreaPage = (request: EndpointRequest<unknown>, user: User) => Promise<(extra: PageExtra) => Html>;

/** What a change did: JSON gets `status` and `body`; a form post gets the page as it now is, with `page`'s extras. Both get `cookies`. */
export interface ChangeOutcome {
  readonly status: 200 | 202 | 204;
  readonly body?: unknown;
  readonly page?: PageExtra;
  /** A security change re-issued the asking session: its new auth cookie. */
  readonly cookies?: readonly ResponseCookie[];
}

/** One two-factor change of the signed-in user. */
export interface AccountChange<Body> {
  readonly path: string;
  readonly body: TSchema;
  /** The status of its success as JSON when it is not 200 (a form post gets its page). */
  readonly successStatus?: 202 | 204;
  /** The page a form post answers with. */
  readonly area: AreaPage;
  /** The change adds a way into the account: it needs a recent sign-in (decision 0065). */
  readonly recentSignIn?: boolean;
  readonly run: (user: User, body: Body, request: EndpointRequest<Body>) => Promise<ChangeOutcome>;
}

/** What every change uses: the user read afresh, the recent-sign-in rule, the pages, and the lockout's length. */
export interface AccountChangeOptions {
  readonly users: Pick<UserManager, 'findById'>;
  readonly recent: Pick<RecentSignInCheck, 'require'>;
  readonly pages: Pick<PageRendering, 'headersFor'>;
  readonly clock: Clock;
  readonly config: Pick<Config, 'lockoutSeconds'>;
}

const REFUSALS: Record<TwoFactorError['reason'], WordedFieldErrors> = {
  'code-required': { code: [(m) => m.problemTwoFactorCodeRequired] },
  'invalid-code': { code: [(m) => m.problemTwoFactorCodeInvalid] },
  'invalid-phone-number': { phoneNumber: [(m) => m.problemPhoneNumberFormat] },
  'no-pending-key': { code: [(m) => m.problemNoPendingKey] },
  'phone-unavailable': { phoneNumber: [(m) => m.problemTextMessagesUnavailable] },
};

/**
 * The endpoint of a two-factor change of the signed-in user, from JSON or from the set-up pages'
 * forms. A refusal is 400 with the reason by field (a locked account: 429 with `Retry-After`); a
 * refused form gets its page as the user saw it before the change was tried. The operations that
 * check a code count on the signed-in user's budget, which the second steps of the user's
 * sign-ins share.
 */
export function accountChanges({ users, recent, pages, clock, config }: AccountChangeOptions) {
  const rateLimits = { account: (_body: unknown, request: LimitedRequest) => userAccount(signedInUserId(request)) };
  const attempt = async <Body>(run: AccountChange<Body>['run'], user: User, request: EndpointRequest<Body>): Promise<ChangeOutcome> => {
    try {
      return await run(user, request.body, request);
    } catch (error) {
      if (error instanceof TwoFactorError) throw GatehouseError.validation(REFUSALS[error.reason]);
      if (error instanceof AccountLockedError) throw accountLockedError(error, clock, config.lockoutSeconds);
      throw error;
    }
  };

  return <Body>({ path, body, successStatus, area, recentSignIn = false, run }: AccountChange<Body>): Endpoint =>
    defineEndpoint<Body>({
      method: 'POST',
      path,
      authorization: SIGNED_IN_USER,
      body,
      forms: true,
      rateLimits,
      ...(successStatus === undefined ? {} : { successStatus }),
      // A body that failed validation: the page as it is, with the errors.
      async formErrors(request, errors) {
        const page = await area(request, await signedInUser(users, request));
        return pageResponse(pages, page({ errors }));
      },
      async handle(request) {
        const user = await signedInUser(users, request);
        // A refused form shows the page as the user saw it before the change was tried (which
        // may have made a pending key since): prepared first.
        const before = request.form ? await area(request, user) : undefined;
        try {
          // Before any code is checked: a caller without a recent sign-in spends no guess.
          if (recentSignIn) await recent.require(request);
          const outcome = await attempt(run, user, request);
          const cookies = outcome.cookies === undefined ? {} : { cookies: outcome.cookies };
          if (!request.form) return { status: outcome.status, headers: NO_STORE, ...cookies, ...(outcome.body === undefined ? {} : { body: outcome.body }) };
          const page = await area(request, await signedInUser(users, request));
          return { ...noStore(pageResponse(pages, page(outcome.page ?? {}))), ...cookies };
        } catch (error) {
          if (before === undefined || !isCallersError(error)) throw error;
          return formRefusal(error, pageResponse(pages, before({ errors: fieldErrorsOf(error, request.messages()) })));
        }
      },
    });
}
