// Debian's Chromium for the browser tests (test/browser/), driven by playwright-core: no browser download.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_MISSING = `${CHROMIUM} is missing: the browser tests need Debian's chromium package (apt-get install chromium)`;

/** Headless Chromium, or null when it is not installed (each test then fails with CHROMIUM_MISSING). */
export async function launchChromium(): Promise<Browser | null> {
  if (!existsSync(CHROMIUM)) return null;
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Without the background-networking flags Chromium phones home, and this machine's closed network refuses it.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
