/**
 * A session's device as a person reads it on the profile page's "Where you are signed in":
 * "Chrome on Linux", "Safari on iPhone", "curl", rather than a `User-Agent` string.
 *
 * Browsers and systems are bowser's (MIT, no dependencies, kept up with new browsers): reading
 * user agents well is a moving target that a hand-written list would fall behind on. Its patterns
 * were checked for slow matching on hostile strings (src/identity/device-description.test.ts);
 * the user agent is whatever the client sent, so the string is cut to the length the store keeps
 * before it is read.
 */
import Bowser from 'bowser';
import { MAX_USER_AGENT_LENGTH, type UserSessionKind } from '../store/ports.ts';

export const UNKNOWN_DEVICE = 'Unknown device';
export const AN_APP = 'An app';

/**
 * Only bowser's named browsers count: for any other string it makes a "name" out of whatever
 * precedes the first slash, which would put attacker-chosen text in front of "on Windows".
 */
const NAMED_BROWSERS: ReadonlySet<string> = new Set(Object.values(Bowser.BROWSER_MAP));

/** Names that say the system twice ("Samsung Internet for Android on Android"). */
const SHORTER_NAMES: Readonly<Record<string, string>> = { 'Samsung Internet for Android': 'Samsung Internet' };

/**
 * The first product of a user agent (RFC 9110: `curl/8.0.1`, `okhttp/4.12.0`): a client that is
 * not a browser usually names itself there. Letters first, token characters, bounded: one pass.
 */
const PRODUCT = /^([A-Za-z][A-Za-z0-9._+-]{0,39})(?:\/|\s|$)/;

/** `Mozilla/5.0` is every browser's compatibility prefix, not a name for a person. */
const NOT_A_PRODUCT_NAME = new Set(['mozilla']);

/**
 * "<Browser> on <system>" for a browser; the product's name for a client that names itself
 * (`curl`); "An app" for another token client; else "Unknown device".
 */
export function describeDevice(userAgent: string | null, kind: UserSessionKind): string {
  const agent = (userAgent ?? '').slice(0, MAX_USER_AGENT_LENGTH).trim();
  return (agent === '' ? null : (browserOn(agent) ?? productName(agent))) ?? (kind === 'token' ? AN_APP : UNKNOWN_DEVICE);
}

function browserOn(agent: string): string | null {
  try {
    // Parsing lazily: the engine, which no description names, is never read.
    const parser = Bowser.getParser(agent, true);
    const browser = parser.getBrowserName();
    if (!NAMED_BROWSERS.has(browser)) return null;
    const system = systemName(parser);
    const name = SHORTER_NAMES[browser] ?? browser;
    return system === null ? name : `${name} on ${system}`;
  } catch {
    // A parser bug on some odd string must not take the profile page down with it.
    return null;
  }
}

/** The system, or for iOS the device people know it by ("iPhone", "iPad"). */
function systemName(parser: Bowser.Parser.Parser): string | null {
  const os = parser.getOSName();
  if (os === 'iOS') return parser.getPlatform().model ?? os;
  return os === '' ? null : os;
}

function productName(agent: string): string | null {
  const name = PRODUCT.exec(agent)?.[1];
  return name === undefined || NOT_A_PRODUCT_NAME.has(name.toLowerCase()) ? null : name;
}
