import { describe, expect, it } from 'vitest';
import { MAX_USER_AGENT_LENGTH } from '../store/ports.ts';
import { AN_APP, describeDevice, UNKNOWN_DEVICE } from './device-description.ts';

/** User agents as the browsers and clients send them. */
const BROWSERS: readonly (readonly [string, string])[] = [
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome on Linux'],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36', 'Chrome on Linux'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome on Windows'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome on macOS'],
  ['Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36', 'Chrome on Android'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1', 'Chrome on iPhone'],
  ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome on Chrome OS'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0', 'Firefox on Windows'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0', 'Firefox on macOS'],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 'Firefox on Linux'],
  ['Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0', 'Firefox on Android'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/127.0 Mobile/15E148 Safari/605.1.15', 'Firefox on iPhone'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 'Safari on macOS'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari on iPhone'],
  ['Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari on iPad'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.68', 'Microsoft Edge on Windows'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.68', 'Microsoft Edge on macOS'],
  ['Mozilla/5.0 (Linux; Android 10; HD1913) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36 EdgA/126.0.2592.80', 'Microsoft Edge on Android'],
  ['Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36', 'Samsung Internet on Android'],
];

/** Clients that are not browsers: they name themselves first. */
const CLIENTS: readonly (readonly [string, string])[] = [
  ['curl/8.0.1', 'curl'],
  ['okhttp/4.12.0', 'okhttp'],
  ['python-requests/2.32.3', 'python-requests'],
  ['Dart/3.4 (dart:io)', 'Dart'],
  ['MyApp/1.2 CFNetwork/1494.0.7 Darwin/23.4.0', 'MyApp'],
];

describe('describeDevice', () => {
  it.each(BROWSERS)('names the browser and its system: %s', (userAgent, description) => {
    expect(describeDevice(userAgent, 'cookie')).toBe(description);
    // A browser holding tokens is the same browser.
    expect(describeDevice(userAgent, 'token')).toBe(description);
  });

  it.each(CLIENTS)('names a client that is not a browser by its product: %s', (userAgent, description) => {
    expect(describeDevice(userAgent, 'token')).toBe(description);
  });

  it('says "An app" for a token client it cannot name, and "Unknown device" for a browser session', () => {
    for (const userAgent of [null, '', '   ', 'Mozilla/5.0', '(compatible)', '12345']) {
      expect(describeDevice(userAgent, 'token')).toBe(AN_APP);
      expect(describeDevice(userAgent, 'cookie')).toBe(UNKNOWN_DEVICE);
    }
  });

  it('never passes on text of the user agent other than a bounded product name', () => {
    const garbage = '<script>"\'&;{}[]|\\^`~!@#$%*=?,'.repeat(9).slice(0, MAX_USER_AGENT_LENGTH);
    expect(garbage).toHaveLength(256);
    expect(describeDevice(garbage, 'cookie')).toBe(UNKNOWN_DEVICE);
    // Bowser would make a "browser" of whatever precedes a slash; only its named browsers count.
    expect(describeDevice('Your bank/1.0 (Windows NT 10.0)', 'cookie')).toBe('Your');
    expect(describeDevice(`${'x'.repeat(41)}/1.0`, 'cookie')).toBe(UNKNOWN_DEVICE);
    expect(describeDevice('Elsewhere/<2.0>', 'cookie')).toBe('Elsewhere');
  });

  it('reads only what the store keeps: the first 256 characters', () => {
    const chrome = BROWSERS[0]![0];
    expect(describeDevice(`${' '.repeat(MAX_USER_AGENT_LENGTH)}${chrome}`, 'cookie')).toBe(UNKNOWN_DEVICE);
  });

  /**
   * The user agent is the client's to choose (256 characters kept). Strings made to make regular
   * expressions backtrack: long runs of the tokens and separators the parser's patterns look for,
   * alone, in pairs and mixed at random. The suite's timeout is the bound; the answer is checked.
   * (Measured when the parser was chosen: at most about 0.05 ms for one of these on a 256-character
   * string, growing linearly with length.)
   */
  it('answers for hostile user agents built to make the parser backtrack', () => {
    const descriptions = new Set<string>();
    for (const userAgent of hostileUserAgents()) {
      expect(userAgent.length).toBeLessThanOrEqual(MAX_USER_AGENT_LENGTH);
      const description = describeDevice(userAgent, 'cookie');
      expect(description.length).toBeGreaterThan(0);
      expect(description.length).toBeLessThanOrEqual(60);
      descriptions.add(description);
    }
    expect(descriptions).toContain(UNKNOWN_DEVICE);
    expect(describeDevice('a'.repeat(MAX_USER_AGENT_LENGTH), 'cookie')).toBe(UNKNOWN_DEVICE);
    expect(describeDevice(`Mozilla/5.0 (${' '.repeat(MAX_USER_AGENT_LENGTH)}`, 'token')).toBe(AN_APP);
  });
});

const FRAGMENTS = [
  'a', '1', '/', ' ', '\t', '(', ')', ';', '.', '_', '-', ':', 'a/', '/ (', '( ', ' (', '1.', 'rv:',
  'Mozilla/5.0 (', 'AppleWebKit/', 'KHTML, like Gecko ', 'Gecko/', 'Chrome/', 'Chromium/', 'CriOS/', 'Safari/', 'Version/1.',
  'Mobile/', 'Firefox/', 'FxiOS/', 'Edg/', 'Edge/', 'EdgA/', 'OPR/', 'Opera ', 'SamsungBrowser/', 'UCBrowser/', 'YaBrowser/',
  'MSIE ', 'Trident/', 'Silk/', 'sailfish', 'freebox', 'Android ', 'Build/', 'SM-', 'Linux; ', 'X11; ', 'CrOS ', 'Windows NT ',
  'Windows Phone ', 'iPhone OS ', 'iPad; CPU OS ', 'Mac OS X 10_', 'Macintosh; ', 'Tizen ', 'compatible; ', 'Googlebot/', 'bot',
];

function* hostileUserAgents(): Generator<string> {
  const fill = (text: string) => text.repeat(Math.ceil(MAX_USER_AGENT_LENGTH / text.length)).slice(0, MAX_USER_AGENT_LENGTH);
  for (const first of FRAGMENTS) {
    yield fill(first);
    yield `Mozilla/5.0 (${fill(first)}`.slice(0, MAX_USER_AGENT_LENGTH);
    yield `${fill(first).slice(0, MAX_USER_AGENT_LENGTH - 1)}!`;
    for (const second of FRAGMENTS) yield fill(first + second);
  }
  // Seeded, so that a failure names the same strings again.
  let seed = 1;
  const next = (below: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * below;
  const separators = ' /();.:_-1aX\t';
  for (let count = 0; count < 2000; count++) {
    let userAgent = '';
    while (userAgent.length < MAX_USER_AGENT_LENGTH) userAgent += next(1) < 0.3 ? FRAGMENTS[Math.floor(next(FRAGMENTS.length))] : separators[Math.floor(next(separators.length))];
    yield userAgent.slice(0, MAX_USER_AGENT_LENGTH);
  }
}
