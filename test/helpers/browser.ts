/**
 * Real Chromium for page tests: Debian's `chromium` (SPEC section 1: `/usr/bin/chromium`, or
 * `CHROMIUM_PATH`), driven by playwright-core. Without it the page suites skip with one loud line,
 * unless REQUIRE_SERVICES=1, when they fail.
 */
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
