/**
 * Real Chromium for page tests: Debian's `chromium` (docs/reference/configuration.md: `/usr/bin/chromium`, or
 * `CHROMIUM_PATH`), driven by playwright-core. Without it the page suites skip with one loud line,
 * unless REQUIRE_SERVICES=1, when they fail.
 */
import { createServer } from 'node:net';
import { access, constants } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';
import { missing } from './databases.ts';

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
