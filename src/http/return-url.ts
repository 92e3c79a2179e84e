/** Longer return URLs are dropped rather than carried through the login page. */
const MAX_RETURN_URL_LENGTH = 2048;
/** C0 controls and DEL: browsers strip some of them, which can turn `/\t/evil` into `//evil`. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The value when it is a local path the login may send the browser to, else null (ASP.NET's
 * `IsLocalUrl`): `/x` yes; `//x` and `/\x` (browsers read both as another host), absolute URLs,
 * control characters and anything not starting with `/` no.
 */
export function localReturnUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_RETURN_URL_LENGTH) return null;
  if (value[0] !== '/') return null;
  if (value[1] === '/' || value[1] === '\\') return null;
  if (CONTROL.test(value)) return null;
  return value;
}

/** The login page, told where to come back to when that place is local. */
export function loginLocation(returnUrl: string): string {
  const local = localReturnUrl(returnUrl);
  return local === null ? LOGIN_PATH : `${LOGIN_PATH}?ReturnUrl=${encodeURIComponent(local)}`;
}

/** The cookie scheme's `LoginPath`. */
export const LOGIN_PATH = '/account/login';
