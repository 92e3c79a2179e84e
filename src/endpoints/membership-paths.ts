import { ConfigError } from '../config/config-error.ts';
import type { AccountLinks } from '../identity/account-mail.ts';
import { localReturnUrl } from './return-url.ts';

/** One or more segments of unreserved URL characters, none of them `.` or `..`. */
const PREFIX = /^(\/(?!\.{1,2}(\/|$))[A-Za-z0-9._~-]+)+$/;

/**
 * Where the membership, token and page routes live: docs/reference/http.md's paths under one prefix —
 * `''` for none (the reference service), or a path such as `/identity`, which puts the login
 * page at `/identity/account/login`, the token endpoint at `/identity/auth/token` and the
 * refresh cookie's Path at `/identity/auth`. Built once from the prefix and handed to every
 * module that writes one of these paths into a link, a form action, a redirect or a cookie, so
 * that they all move with the routes (registered under the same prefix).
 */
export class MembershipPaths {
  /** docs/reference/http.md's paths as they are. */
  static readonly ROOT = new MembershipPaths('');

  /** `''` or `/segment[/segment…]`: no trailing slash, so `prefix + '/account/…'` is the path. */
  readonly prefix: string;
  /** The cookie scheme's `LoginPath` (ASP.NET's name): the login page, where challenges send browsers. */
  readonly login: string;
  readonly logout: string;
  readonly register: string;
  readonly confirmEmail: string;
  readonly forgotPassword: string;
  readonly resetPassword: string;
  readonly profile: string;
  readonly password: string;
  /** The second step of a sign-in, its code by mail or text, and the recovery code instead. */
  readonly twoFactorLogin: string;
  readonly twoFactorSend: string;
  readonly recoveryLogin: string;
  /** The signed-in user's two-factor set-up page and its forms. */
  readonly twoFactor: string;
  readonly twoFactorEnable: string;
  readonly twoFactorDisable: string;
  readonly recoveryCodes: string;
  /** The user's organizations: the list (and page), and the switch of the active one. */
  readonly organizations: string;
  readonly activeOrganization: string;
  /** The token endpoints' folder, and the Path of the refresh cookie: it goes to them and nowhere else. */
  readonly auth: string;
  /** Paths under which every endpoint issues or manages credentials: their answers are never stored. */
  readonly credentialPaths: readonly string[];

  /** @throws ConfigError for a prefix that is not `''` or a plain path without a trailing slash. */
  constructor(prefix: string) {
    this.prefix = checkedPrefix(prefix);
    const account = `${prefix}/account`;
    this.login = `${account}/login`;
    this.logout = `${account}/logout`;
    this.register = `${account}/register`;
    this.confirmEmail = `${account}/confirm-email`;
    this.forgotPassword = `${account}/forgot-password`;
    this.resetPassword = `${account}/reset-password`;
    this.profile = `${account}/profile`;
    this.password = `${account}/password`;
    this.twoFactorLogin = `${account}/login/2fa`;
    this.twoFactorSend = `${account}/login/2fa/send`;
    this.recoveryLogin = `${account}/login/recovery`;
    this.twoFactor = `${account}/2fa`;
    this.twoFactorEnable = `${account}/2fa/enable`;
    this.twoFactorDisable = `${account}/2fa/disable`;
    this.recoveryCodes = `${account}/2fa/recovery-codes`;
    this.organizations = `${account}/organizations`;
    this.activeOrganization = `${account}/organizations/active`;
    this.auth = `${prefix}/auth`;
    this.credentialPaths = Object.freeze([`${this.auth}/`, `${account}/`, `${prefix}/signin-`]);
    Object.freeze(this);
  }

  /** `/account/external-login/<provider>`: starts a sign-in with that provider. */
  externalLogin(provider: string): string {
    return `${this.prefix}/account/external-login/${encodeURIComponent(provider)}`;
  }

  /** `/account/logins/<provider>`: links (POST) or unlinks (DELETE) that provider. */
  linkedLogin(provider: string): string {
    return `${this.prefix}/account/logins/${encodeURIComponent(provider)}`;
  }

  /** `/signin-<provider>`: where the provider sends the browser back (the callback route). */
  externalCallback(provider: string): string {
    return `${this.prefix}/signin-${provider}`;
  }

  /** `path?ReturnUrl=…` when `returnUrl` is a local path, else `path` alone. */
  withReturnUrl(path: string, returnUrl: string | null | undefined): string {
    const local = localReturnUrl(returnUrl);
    return local === null ? path : `${path}?ReturnUrl=${encodeURIComponent(local)}`;
  }

  /** The login page, told where to come back to when that place is local. */
  loginFor(returnUrl: string): string {
    return this.withReturnUrl(this.login, returnUrl);
  }

  /** The links of the membership mails, absolute under `PUBLIC_URL`. */
  accountLinks(publicUrl: URL): AccountLinks {
    return {
      confirmEmail: (userId, code) => publicLink(publicUrl, this.confirmEmail, { userId: String(userId), code }),
      resetPassword: (email, code) => publicLink(publicUrl, this.resetPassword, { email, code }),
    };
  }

  /** `/account/invitations/<code>`: an invitation's page, where it is seen and accepted. */
  invitation(code: string): string {
    return `${this.prefix}/account/invitations/${encodeURIComponent(code)}`;
  }

  /** The link of an invitation mail, absolute under `PUBLIC_URL`. */
  invitationLink(publicUrl: URL, code: string): string {
    return publicLink(publicUrl, this.invitation(code));
  }

  /** `/orgs/<id>`: an organization in the API (its members, invitations, … below it). */
  organization(id: number): string {
    return `${this.prefix}/orgs/${id}`;
  }

  /** The redirect URI registered with a provider: `PUBLIC_URL` + the callback path. */
  externalRedirectUri(publicUrl: URL, provider: string): string {
    return publicLink(publicUrl, this.externalCallback(provider));
  }
}

/**
 * `PUBLIC_URL` + path (+ query), as the reference spells it: `PUBLIC_URL` may carry a path of its own
 * (`https://host/base`, behind a proxy), which `new URL(path, base)` would drop.
 */
export function publicLink(publicUrl: URL, path: string, query: Record<string, string> = {}): string {
  const base = `${publicUrl.origin}${publicUrl.pathname.replace(/\/+$/, '')}`;
  const parameters = Object.entries(query)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  return parameters === '' ? `${base}${path}` : `${base}${path}?${parameters}`;
}

function checkedPrefix(prefix: string): string {
  if (typeof prefix !== 'string') throw new ConfigError('prefix', "a string: '' or a path such as '/identity'", null);
  if (prefix === '' || PREFIX.test(prefix)) return prefix;
  throw new ConfigError('prefix', `'' or a path such as '/identity': ${prefixProblem(prefix)}`, prefix);
}

/** What is wrong with a prefix the pattern refused, in the words a developer needs to fix it. */
function prefixProblem(prefix: string): string {
  if (!prefix.startsWith('/')) return "it starts with '/'";
  if (prefix.endsWith('/')) return "without a trailing '/' (use '' for none)";
  if (/[?#]/.test(prefix)) return "a path only, without '?' or '#'";
  if (prefix.includes('//')) return "without empty segments ('//')";
  return "segments of letters, digits, '.', '_', '~' or '-' (no ':' or '*', which Fastify reads as parameters; no '.' or '..' alone)";
}
