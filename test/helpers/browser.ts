/**
 * Real Chromium for page tests: Debian's `chromium` (docs/reference/configuration.md: `/usr/bin/chromium`, or
 * `CHROMIUM_PATH`), driven by playwright-core. Without it the page suites skip with one loud line,
 * unless REQUIRE_SERVICES=1, when they fail.
 */
import { createServer } from 'node:net';
import { access, constants } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';
import { missing } from './databases.ts';
import { startTestApp, type TestApp } from './test-app.ts';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags a headless run on a build machine needs: no sandbox (root), no GPU, no network chatter. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function chromiumAvailable(): Promise<boolean> {
  try {
    await access(executablePath, constants.X_OK);
    return true;
  } catch (error) {
    await missing('Chromium', 'CHROMIUM_PATH', executablePath, error);
    return false;
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath, args: ARGS, headless: true });
}

/** A loopback port free right now: the browser's Origin must be PUBLIC_URL's, so the port is chosen before the service starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Chromium, and a service listening on loopback for it. */
export interface ChromiumAndService {
  readonly browser: Browser;
  readonly instance: TestApp;
  /** The service's address as the browser opens it: `PUBLIC_URL`. */
  readonly baseUrl: string;
}

/**
 * Chromium and a service for it on `databaseUrl`. The port is chosen first, so that `PUBLIC_URL`
 * names it: the browser's `Origin` must be that origin for the cross-site checks (and, for
 * passkeys, WebAuthn's). `hostName` is how the browser names loopback (`localhost` where the page
 * needs a host name: browsers refuse an IP address as a passkey's relying party); `env` may use
 * the address (an OpenID provider's redirect URI).
 */
export async function chromiumAndService(
  databaseUrl: string,
  options: { hostName?: '127.0.0.1' | 'localhost'; env?: (baseUrl: string) => Record<string, string> | Promise<Record<string, string>> } = {},
): Promise<ChromiumAndService> {
  const browser = await launchChromium();
  const port = await freePort();
  const baseUrl = `http://${options.hostName ?? '127.0.0.1'}:${port}`;
  const env = { PUBLIC_URL: baseUrl, ...(await options.env?.(baseUrl)) };
  const instance = await startTestApp(databaseUrl, { env });
  await instance.app.listen({ host: '127.0.0.1', port });
  return { browser, instance, baseUrl };
}
