// Debian's Chromium for the browser tests (test/browser/), driven by playwright-core: no browser download.
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { type Browser, chromium } from 'playwright-core';
import { loadConfig } from '../../src/core/config.js';
import { seedDemo } from '../../src/demo.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { startApp, type TestApp } from './app.js';

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

/**
 * A gateway on a loopback port with the demo account seeded (`npm run seed:demo`'s), the delivery worker off (the
 * demo's webhook points at hooks.example.com, and nothing may leave the machine).
 */
export async function demoGateway(): Promise<{ testApp: TestApp; server: Server; base: string; demoApiKey: string }> {
  const testApp = await startApp({}, [], { worker: false });
  const config = loadConfig({
    DATABASE_URL: testApp.databaseUrl,
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    PASSWORD_HASH_COST: '10',
    LOG_LEVEL: 'silent',
  });
  const { apiKey } = await seedDemo(testApp.app.database.db, config);
  const server = createHttpServer(testApp.app).server;
  const { port } = await listen(server, 0, '127.0.0.1');
  return { testApp, server, base: `http://127.0.0.1:${port}`, demoApiKey: apiKey };
}
