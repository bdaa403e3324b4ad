import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { createParley, unwrap, type Parley } from '../../sdk/index.ts';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/core/index.ts';

// The console's knowledge, actions, simulations, webhook-log and analytics screens in headless
// Chromium (Debian's) against the real server on a real port. An agent whose post-call webhook
// points at a receiver on this machine makes the calls that fill the logs and the analytics.
// Each screen is saved as a PNG under test-results/console/ (not committed) for a reviewer.

const SHOTS = resolve(import.meta.dirname, '../../test-results/console');
const KEY = 'pk_console_screens_key_0001';
const FROM = '+14155550188';
const MISSING = '00000000-0000-4000-8000-000000000000';

let app: App;
let url: string;
let dir: string;
let browser: Browser;
let parley: Parley;
let receiver: http.Server;
let received: string[] = [];
let agentId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'parley-screens-'));
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ received: true }));
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
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
      // The webhook receiver is on the loopback address.
      PARLEY_ALLOW_PRIVATE_NETWORK: '1',
    }),
    { announce: () => {} },
  );
  url = await app.listen();
  parley = createParley({ baseUrl: url, apiKey: KEY });
  await unwrap(parley.api.POST('/v2/custom-numbers', { body: { phone_number: FROM, provider: 'sim' } }));
  const agent = await unwrap(
    parley.api.POST('/v2/assistants', {
      body: {
        type: 'outbound',
        name: 'Screens agent',
        phone_number: FROM,
        external_webhook_url: hook,
        agent: {
          prompt: 'You book tables at a restaurant.',
          greeting_message: 'Hello, this is the restaurant.',
        },
      },
    }),
  );
  agentId = agent.model_id;
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await new Promise<void>((done) => (receiver ? receiver.close(() => done()) : done()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function signedIn(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.getByLabel('API key').fill(KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Agents' }).waitFor();
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** Places `count` calls to the agent and waits until every one has ended. */
async function placeCalls(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const placed = await unwrap(
      parley.api.POST('/v2/calls', {
        body: { model_id: agentId, phone: `+1415555014${i}`, name: `Caller ${i}` },
      }),
    );
    ids.push(placed.call_id);
  }
  for (const callId of ids) {
    await expect
      .poll(
        async () =>
          (await unwrap(parley.api.GET('/v2/calls/{call_id}', { params: { path: { call_id: callId } } })))
            .calls[0]?.status,
        { timeout: 30_000, interval: 200 },
      )
      .toBe('completed');
  }
  return ids;
}

let baseId = '';
let actionId = '';
let suiteId = '';
let logId = '';
let runRoute = '';

describe('the console screens', () => {
  it('creates a knowledge base, refuses an empty name beside the field, and adds a text source', async () => {
    const page = await signedIn();
    await page.goto(`${url}/#/knowledge`);
    await page.getByRole('heading', { name: 'Knowledge bases' }).waitFor();
    await page.getByText('No knowledge bases yet').waitFor();
    await page.getByRole('button', { name: 'Create knowledge base' }).click();
    await expect.poll(() => page.locator('#kb-name-error').textContent()).toMatch(/name/i);
    await page.getByLabel('Name', { exact: true }).fill('Restaurant facts');
    await page.getByLabel('When the agent consults it').fill('When the caller asks about opening hours');
    await page.getByRole('button', { name: 'Create knowledge base' }).click();
    await page.getByRole('heading', { name: 'Restaurant facts' }).waitFor();
    baseId = decodeURIComponent(page.url().split('#/knowledge/')[1] ?? '');
    expect(baseId).not.toBe('');

    // A text source without its text: the form says so beside the field.
    await page.getByRole('button', { name: 'Add source' }).click();
    await expect.poll(() => page.locator('#kb-source-content-error').textContent()).toMatch(/text/i);
    await page.getByLabel('Source name').fill('Opening hours');
    await page.getByLabel('Source text').fill('We open at 9 and close at 23, every day but Monday.');
    await page.getByRole('button', { name: 'Add source' }).click();
    await page.getByRole('cell', { name: /We open at 9/ }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Added the source' }).waitFor();
    // A web page the API cannot fetch: its words beside the address field.
    await page.getByLabel('Web page').check();
    await page.getByLabel('Page address (URL)').fill('http://127.0.0.1:1/nothing-here');
    await page.getByRole('button', { name: 'Add source' }).click();
    await expect.poll(() => page.locator('#kb-source-url-error').textContent()).not.toBe('');
    await shot(page, 'screens-01-knowledge-base');

    await page.getByRole('link', { name: 'All knowledge bases' }).click();
    await page.getByRole('link', { name: 'Restaurant facts' }).waitFor();
    await shot(page, 'screens-02-knowledge');
    await page.close();
  });

  it('creates a CUSTOM_ACTION with its form and shows its configuration; the API refuses bad JSON beside the field', async () => {
    const page = await signedIn();
    await page.goto(`${url}/#/actions`);
    await page.getByRole('heading', { name: 'Actions', exact: true }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('lookup_order');
    await page.getByLabel('Description').fill('When the caller asks where their order is');
    await page.getByLabel('URL', { exact: true }).fill('https://example.com/orders/{order_id}');
    await page.getByLabel('Headers').fill('X-Shop: console');
    await page.getByLabel('Values the agent collects during the call').fill('order_id: The order number');
    // A body that is not JSON: the API's words beside the body field.
    await page.getByLabel('Method').selectOption('POST');
    await page.getByLabel('JSON body').fill('{"order": <order_id>');
    await page.getByRole('button', { name: 'Create action' }).click();
    await expect.poll(() => page.locator('#ca-json_body_stringified-error').textContent()).toMatch(/JSON/);
    await shot(page, 'screens-03-action-new');
    await page.getByLabel('Method').selectOption('GET');
    await page.getByRole('button', { name: 'Create action' }).click();
    await page.getByRole('heading', { name: 'lookup_order' }).waitFor();
    actionId = decodeURIComponent(page.url().split('#/actions/')[1] ?? '');
    await page.getByText('GET https://example.com/orders/{order_id}').waitFor();
    await page.getByText('HTTP request', { exact: false }).first().waitFor();
    await page.getByRole('cell', { name: 'X-Shop' }).waitFor();
    await shot(page, 'screens-04-action');

    // Another kind as JSON: the API's complaint is shown beside the configuration.
    await page.getByRole('link', { name: 'All actions' }).click();
    await page.getByRole('link', { name: 'lookup_order' }).waitFor();
    await page.getByLabel('Kind', { exact: true }).selectOption('JSON');
    await page.getByLabel('Kind of action').selectOption('SEND_SMS');
    await page.getByLabel('Configuration (JSON)').fill('{"name": "thanks"}');
    await page.getByRole('button', { name: 'Create action' }).click();
    await expect.poll(() => page.locator('#aj-config-error').textContent()).toMatch(/content/);
    await page.close();
  });

  it("attaches the action and the knowledge base on the agent's tab, and detaches the action", async () => {
    const page = await signedIn();
    await page.goto(`${url}/#/agents/${agentId}/attachments`);
    const action = page.getByRole('checkbox', { name: /lookup_order|When the caller asks where/ });
    const base = page.getByRole('checkbox', { name: 'Restaurant facts' });
    await action.waitFor();
    expect(await action.isChecked()).toBe(false);
    await action.check();
    await base.check();
    // Checked because the agent, read again, has them (not because the box was clicked).
    await expect.poll(() => action.isChecked()).toBe(true);
    await expect.poll(() => base.isChecked()).toBe(true);
    await page.reload();
    await expect.poll(() => action.isChecked()).toBe(true);
    const read = async () =>
      (
        await unwrap(
          parley.api.GET('/v2/assistants/{model_id}', {
            params: { path: { model_id: agentId }, query: { include_actions: true } },
          }),
        )
      ).assistants[0]!;
    expect((await read()).actions).toEqual([actionId]);
    expect((await read()).knowledge_base_id).toBe(baseId);
    await shot(page, 'screens-05-agent-attachments');
    await action.uncheck();
    await expect.poll(async () => (await read()).actions).toEqual([]);
    await expect.poll(() => action.isChecked()).toBe(false);
    await page.close();
  });

  it('writes a test case, makes a suite of it, runs it and shows the verdicts and the transcript', async () => {
    const page = await signedIn();
    await page.goto(`${url}/#/simulations`);
    await page.getByRole('heading', { name: 'Simulations' }).waitFor();
    await page.getByLabel('Case name').fill('Table for two');
    await page.getByLabel('Caller’s prompt').fill('You want to book a table for two tonight at 8.');
    await page
      .getByLabel('Success criteria')
      .fill('The agent greets the caller\nThe agent confirms the booking time');
    await page.getByRole('button', { name: 'Add test case' }).click();
    await page.getByRole('status').filter({ hasText: 'Table for two' }).waitFor();
    await page.getByRole('checkbox', { name: /Table for two/ }).waitFor();

    await page.getByLabel('Suite name').fill('Bookings');
    await page.getByLabel('Agent to test').selectOption({ label: 'Screens agent' });
    await page.getByRole('checkbox', { name: /Table for two/ }).check();
    await shot(page, 'screens-05-simulations');
    await page.getByRole('button', { name: 'Create suite' }).click();
    await page.getByRole('heading', { name: 'Bookings' }).waitFor();
    suiteId = decodeURIComponent(page.url().split('#/simulations/')[1] ?? '');
    await page.getByRole('heading', { name: 'Table for two' }).waitFor();
    await page.getByLabel('Caller turns at most').fill('10');
    await page.getByRole('button', { name: /^Run 1 test case/ }).click();
    await page.getByRole('heading', { name: 'Run of Bookings' }).waitFor();
    runRoute = decodeURIComponent(page.url().split('#/')[1] ?? '');
    await page.getByText(/^Finished: /).waitFor({ timeout: 60_000 });
    await page.getByRole('table', { name: /Verdicts for Table for two/ }).waitFor();
    await expect.poll(() => page.getByRole('cell', { name: /^(✓ Met|✗ Not met)$/ }).count()).toBe(2);
    await page.locator('summary', { hasText: 'Transcript' }).first().click();
    await page.getByText('Hello, this is the restaurant.').first().waitFor();
    await shot(page, 'screens-06-simulation-run');
    await page.getByRole('link', { name: 'Back to the suite' }).click();
    await page.getByRole('table', { name: 'Runs' }).getByText('Finished').waitFor();
    await page.close();
  }, 90_000);

  it('lists the post-call webhooks of calls and shows one attempt', async () => {
    received = [];
    await placeCalls(3);
    await expect.poll(() => received.length, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(3);
    await expect
      .poll(async () => (await unwrap(parley.api.GET('/v2/logs'))).total, { timeout: 30_000, interval: 200 })
      .toBeGreaterThanOrEqual(3);
    const page = await signedIn();
    await page.goto(`${url}/#/logs`);
    await page.getByRole('heading', { name: 'Webhook logs' }).waitFor();
    const table = page.getByRole('table', { name: 'Webhook attempts' });
    await table.getByRole('cell', { name: 'Post-call webhook' }).first().waitFor();
    expect(await table.getByRole('cell', { name: 'Delivered' }).count()).toBeGreaterThanOrEqual(3);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No attempts match these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await table.getByRole('cell', { name: '200' }).first().waitFor();
    await shot(page, 'screens-07-logs');
    await table.getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Webhook attempt' }).waitFor();
    logId = decodeURIComponent(page.url().split('#/logs/')[1] ?? '');
    await page.getByRole('heading', { name: 'Request body' }).waitFor();
    await page.getByText('"received": true').waitFor();
    await page.getByRole('cell', { name: 'webhook-signature' }).waitFor();
    await shot(page, 'screens-08-log');
    await page.close();
  }, 90_000);

  it('shows the analytics of those calls as counters, charts and tables', async () => {
    const page = await signedIn();
    await page.goto(`${url}/#/analytics`);
    await page.getByRole('heading', { name: 'Analytics' }).waitFor();
    await expect
      .poll(() => page.locator('.counters > div').first().textContent(), { timeout: 15_000 })
      .toMatch(/^3\s*calls/);
    await page.getByRole('img', { name: /Calls per day/ }).waitFor();
    await page.getByRole('img', { name: /Calls by status/ }).waitFor();
    await page.getByRole('table', { name: 'Agents' }).getByRole('link', { name: 'Screens agent' }).waitFor();
    expect(await page.getByRole('table', { name: 'Recent calls' }).getByRole('row').count()).toBe(4);
    // The chart's numbers are there as a table too.
    await page.getByText('Show the numbers').first().click();
    await page.getByRole('table', { name: 'Calls per day' }).getByRole('cell', { name: '3' }).waitFor();
    await shot(page, 'screens-09-analytics');
    // A filter the calls do not match: none were inbound.
    await page.getByLabel('Type of call').selectOption('inbound');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('No calls in this range.').waitFor();
    await page.close();
  });

  it('says in words when the record of a page does not exist', async () => {
    const page = await signedIn();
    for (const [route, words] of [
      [`knowledge/${MISSING}`, 'This knowledge base does not exist.'],
      [`actions/${MISSING}`, 'This action does not exist.'],
      [`simulations/${MISSING}`, 'This suite does not exist.'],
      [`simulations/${suiteId}/${MISSING}`, 'This run does not exist.'],
      [`logs/${MISSING}`, 'This webhook attempt does not exist.'],
    ] as const) {
      await page.goto(`${url}/#/${route}`);
      await page.getByText(words).waitFor();
    }
    await page.close();
  });

  it('fits a phone-sized screen without sideways scrolling', async () => {
    const page = await signedIn();
    await page.setViewportSize({ width: 390, height: 844 });
    const routes = [
      'knowledge',
      `knowledge/${baseId}`,
      'actions',
      `actions/${actionId}`,
      'simulations',
      `simulations/${suiteId}`,
      runRoute,
      'logs',
      `logs/${logId}`,
      'analytics',
    ];
    for (const [i, route] of routes.entries()) {
      await page.goto(`${url}/#/${route}`);
      await page.locator('h1').waitFor();
      await expect.poll(() => page.getByText('Loading…').count()).toBe(0);
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, route).toBeLessThanOrEqual(0);
      await shot(page, `screens-10-phone-${String(i).padStart(2, '0')}-${route.split('/')[0]}`);
    }
    await page.close();
  });

  it('puts the sections behind a Menu button on a phone, and shows them as links on a desktop', async () => {
    const page = await signedIn();
    const menu = page.getByRole('button', { name: 'Menu', exact: true });
    // includeHidden: the closed menu's links are found, and seen to be hidden.
    const sections = page.getByRole('navigation', { name: 'Sections', includeHidden: true });
    const calls = sections.getByRole('link', { name: 'Calls', includeHidden: true });
    const expanded = () => menu.getAttribute('aria-expanded');
    const focused = () => page.evaluate<string | undefined>('document.activeElement?.textContent');

    // A desktop: the links as before, no button.
    await calls.waitFor();
    expect(await menu.isVisible()).toBe(false);

    // A phone: the button, the links hidden until it is pressed.
    await page.setViewportSize({ width: 390, height: 844 });
    await menu.waitFor();
    expect(await calls.isVisible()).toBe(false);
    expect(await expanded()).toBe('false');
    expect(await menu.getAttribute('aria-controls')).toBe(await sections.getAttribute('id'));
    await shot(page, 'screens-11-phone-menu-closed');
    await menu.click();
    expect(await expanded()).toBe('true');
    await calls.waitFor();
    expect(await sections.getByRole('link').count()).toBe(10);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'screens-12-phone-menu-open');

    // Choosing a section goes there and closes the menu.
    await sections.getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { name: 'Analytics' }).waitFor();
    expect(page.url()).toContain('#/analytics');
    expect(await expanded()).toBe('false');
    expect(await calls.isVisible()).toBe(false);

    // With the keyboard: Enter opens it, Tab reaches the links, Escape closes it and gives the focus
    // back to the button.
    await menu.focus();
    await page.keyboard.press('Enter');
    await expect.poll(expanded).toBe('true');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Agents');
    await page.keyboard.press('Escape');
    await expect.poll(expanded).toBe('false');
    expect(await calls.isVisible()).toBe(false);
    expect(await focused()).toBe('Menu');
    await page.close();
  });

  it("fits an agent's pages and a call's page on a phone-sized screen too", async () => {
    const calls = await unwrap(parley.api.GET('/v2/calls'));
    const callId = calls.calls[0]?.call_id ?? '';
    expect(callId).not.toBe('');
    const page = await signedIn();
    await page.setViewportSize({ width: 390, height: 844 });
    const routes = [
      'agents/new',
      `agents/${agentId}`,
      `agents/${agentId}/attachments`,
      `agents/${agentId}/versions`,
      `agents/${agentId}/test`,
      `agents/${agentId}/chat`,
      `calls/${callId}`,
    ];
    for (const [i, route] of routes.entries()) {
      await page.goto(`${url}/#/${route}`);
      await page.locator('h1').waitFor();
      await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, route).toBeLessThanOrEqual(0);
      const name = route.replace(agentId, 'agent').replace(callId, 'call').replaceAll('/', '-');
      await shot(page, `screens-13-phone-${String(i).padStart(2, '0')}-${name}`);
    }
    await page.close();
  });
});
