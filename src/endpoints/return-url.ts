/** Longer return URLs are dropped rather than carried through the login page. */
const MAX_RETURN_URL_LENGTH = 2048;
/** C0 controls and DEL: browsers strip some of them, which can turn `/\t/evil` into `//evil`. */
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Half of a UTF-16 pair without its other half: no URL can carry it (there is no UTF-8 for it). */
const LONE_SURROGATE = /\p{Cs}/u;
/** What a Location header cannot carry as it is: anything but printable ASCII (space included). */
const NOT_PRINTABLE_ASCII = /[^\u0021-\u007e]/gu;

/**
 * The value when it is a local path the login may send the browser to, else null (ASP.NET's
 * `IsLocalUrl`): `/x` yes; `//x` and `/\x` (browsers read both as another host), absolute URLs,
 * control characters and anything not starting with `/` no. Characters outside printable ASCII
 * (`/café`, `/日本`) come back percent-encoded in UTF-8, as a browser would send them: the value
 * goes into Location headers, which carry ASCII only, and a full-width `／` can no longer be read
 * as a slash by anything downstream.
 */
export function localReturnUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_RETURN_URL_LENGTH) return null;
  if (value[0] !== '/') return null;
  if (value[1] === '/' || value[1] === '\\') return null;
  if (CONTROL.test(value) || LONE_SURROGATE.test(value)) return null;
  const encoded = value.replace(NOT_PRINTABLE_ASCII, (char) => encodeURIComponent(char));
  return encoded.length > MAX_RETURN_URL_LENGTH ? null : encoded;
}
