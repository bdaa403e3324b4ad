import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { createParley, unwrap, type Parley } from '../../sdk/index.ts';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/core/index.ts';

// The console in headless Chromium (Debian's) against the real server on a real port: sign in,
// agents, calls, a CSV campaign to its end, API keys, and what a browser must never be given.
// Each screen is saved as a PNG under test-results/console/ (not committed) for a reviewer.

const SHOTS = resolve(import.meta.dirname, '../../test-results/console');
const KEY = 'pk_console_tests_key_000001';
const FROM = '+14155550199';

let app: App;
let url: string;
let dir: string;
let browser: Browser;
let parley: Parley;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'parley-console-'));
  app = await createApp(
    loadConfig({
      PARLEY_DATA_DIR: dir,
      PORT: '0',
      PARLEY_LOG_LEVEL: 'silent',
      PARLEY_BOOTSTRAP_API_KEY: KEY,
      PARLEY_SIM_MODE: 'text',
      // Test files run side by side: no SIP listener on the one default port.
      PARLEY_SIP: 'off',
      PARLEY_SIM_SPEED: '0',
    }),
    { announce: () => {} },
  );
  url = await app.listen();
  parley = createParley({ baseUrl: url, apiKey: KEY });
  await unwrap(parley.api.POST('/v2/custom-numbers', { body: { phone_number: FROM, provider: 'sim' } }));
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function signedIn(key = KEY): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Agents' }).waitFor();
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

describe('the console', () => {
  it('is served at the root with a policy that forbids inline scripts', async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = html.match(/src="(\/assets\/app-[0-9a-f]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const js = await fetch(`${url}${script}`, { headers: { 'accept-encoding': 'br' } });
    expect(js.headers.get('content-encoding')).toBe('br');
    expect(js.headers.get('cache-control')).toContain('immutable');
  });

  it('refuses a wrong key in words, then signs in with a good one', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await shot(page, '01-sign-in');
    await page.getByLabel('API key').fill('pk_wrong_key_for_this_server');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toMatch(/Invalid or expired token/);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    // The key is in the session's storage only: never in local storage or the address.
    expect(await page.evaluate<number>('localStorage.length')).toBe(0);
    expect(page.url()).not.toContain(KEY);
    await page.close();
  });

  it('creates an agent, shows the API error beside the field, and lists it', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByRole('button', { name: 'Create agent' }).click();
    const nameError = page.locator('#name-error');
    await expect.poll(() => nameError.textContent()).toMatch(/name/);
    await page.getByLabel('Name', { exact: true }).fill('Console agent');
    await page.getByLabel('Prompt', { exact: true }).fill('You book tables at a restaurant.');
    await page.getByLabel('Greeting', { exact: true }).fill('Hello, this is the restaurant.');
    await page.getByLabel('Phone number').selectOption(FROM);
    await shot(page, '02-agent-new');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: 'Console agent' }).waitFor();
    await page.getByRole('link', { name: 'Versions' }).click();
    await page.getByRole('button', { name: 'Publish the draft' }).click();
    await page.getByRole('cell', { name: 'Live', exact: true }).waitFor();
    await shot(page, '03-agent-versions');
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await page.getByRole('link', { name: 'Console agent' }).waitFor();
    await shot(page, '04-agents');
    await page.close();
  });

  it('lists calls and shows a call with its transcript', async () => {
    const agents = await unwrap(parley.api.GET('/v2/assistants/'));
    const agent = agents.assistants.find((a) => a.name === 'Console agent');
    expect(agent).toBeDefined();
    const placed = await unwrap(
      parley.api.POST('/v2/calls', {
        body: { model_id: agent!.model_id, phone: '+14155550123', name: 'Ann' },
      }),
    );
    await expect
      .poll(
        async () =>
          (
            await unwrap(
              parley.api.GET('/v2/calls/{call_id}', { params: { path: { call_id: placed.call_id } } }),
            )
          ).calls[0]?.status,
        { timeout: 30_000, interval: 200 },
      )
      .toBe('completed');
    const page = await signedIn();
    await page.getByRole('link', { name: 'Calls' }).click();
    await page.getByRole('heading', { name: 'Calls' }).waitFor();
    await shot(page, '05-calls');
    await page.locator(`a[href="#/calls/${placed.call_id}"]`).first().click();
    await page.getByText('Hello, this is the restaurant.').first().waitFor();
    await shot(page, '06-call');
    await page.goto(`${url}/#/calls/00000000-0000-4000-8000-000000000000`);
    await page.getByText('This call does not exist.').waitFor();
    await page.close();
  });

  it('uploads a CSV campaign and watches it complete', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
    await page.getByLabel('Agent').selectOption({ label: 'Console agent' });
    await page.getByLabel('From number').selectOption(FROM);
    await page.getByLabel('Name').fill('Console campaign');
    const csv = 'phone,lead_name,city\n+14155550131,Ann,Paris\n+14155550132,Bo,Rome\n+14155550133,Cy,Oslo\n';
    await page
      .getByLabel(/CSV/)
      .setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page
      .getByText(/3 recipients/)
      .first()
      .waitFor();
    await shot(page, '07-campaign-new');
    await page.getByRole('button', { name: /Start|Upload|Create/ }).click();
    await page.getByRole('heading', { name: 'Console campaign' }).waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.getByText('completed').count(), { timeout: 60_000, interval: 500 })
      .toBeGreaterThan(0);
    await page.getByText('+14155550132').waitFor();
    await shot(page, '08-campaign');
    await page.close();
  }, 90_000);

  it('creates and revokes API keys; a revoked key goes back to sign-in', async () => {
    const spare = await unwrap(parley.api.POST('/v2/api_keys', { body: { name: 'spare' } }));
    const page = await signedIn(spare.api_key);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel("New key's name").fill('from the console');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('shown once').waitFor();
    await shot(page, '09-keys');
    await unwrap(parley.api.DELETE('/v2/api_keys/{key_id}', { params: { path: { key_id: spare.id } } }));
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByLabel('API key').waitFor();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/refused|revoked/);
    await page.close();
  });

  it('fits a phone-sized screen without sideways scrolling', async () => {
    const page = await signedIn();
    for (const route of ['agents', 'calls', 'campaigns', 'numbers', 'keys']) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${url}/#/${route}`);
      await page.locator('h1').waitFor();
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, route).toBeLessThanOrEqual(0);
      await shot(page, `10-phone-${route}`);
    }
    await page.close();
  });

  it('numbers list shows the sim number', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Numbers' }).click();
    await page.getByRole('cell', { name: FROM }).waitFor();
    expect(existsSync(join(SHOTS, '01-sign-in.png'))).toBe(true);
    await page.close();
  });
});
