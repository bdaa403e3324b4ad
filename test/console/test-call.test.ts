import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeMicrophone, launchChromium } from './chromium.ts';
import { createParley, unwrap, type Parley } from '../../sdk/index.ts';
import { POCKETSPHINX_INSTALL, pocketSphinxAvailable } from '../../src/providers/index.ts';
import { fliteClip, monoWav, testAudioDir } from '../../src/providers/testing/index.ts';
import { startRealServer, type RealServer } from '../sdk/real-server.ts';

// The console's "Test in the browser" page (console/src/pages/test-call.tsx) in headless Chromium
// against the real server running calls with the offline speech (flite, PocketSphinx): Chromium's
// fake microphone plays a flite sentence (a WAV, looped), the page calls the agent over the
// WebSocket media test call, the live transcript shows the greeting and the caller's words, and
// after hanging up the call's page has them too. Then the text chat page (pages/chat.tsx).
//
// PocketSphinx is a system package (CI installs it): missing in CI this fails; elsewhere it skips.

const available = await pocketSphinxAvailable();
const runHere = available || Boolean(process.env.CI);
if (!runHere)
  console.warn(`console test-call tests skipped: PocketSphinx is not installed (${POCKETSPHINX_INSTALL})`);

const SHOTS = resolve(import.meta.dirname, '../../test-results/console');
const KEY = 'pk_console_test_call_key_01';
const GREETING = 'Hello, thank you for calling. How can I help you today?';
const CALLER_LINE = 'I would like to book an appointment for tomorrow morning.';
const CALLER_WORDS = ['would', 'like', 'book', 'appointment', 'tomorrow', 'morning'];

const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[a-z']+/g) ?? []);
const found = (words: string[], text: string) => words.filter((w) => wordsOf(text).has(w)).length;

let server: RealServer;
let url = '';
let audioDir = '';
let browser: Browser;
let parley: Parley;
let agentId = '';

describe.runIf(runHere)('the console: test call and chat with an agent', () => {
  beforeAll(async () => {
    server = await startRealServer({ calls: true, key: KEY });
    url = server.url;
    parley = createParley({ baseUrl: url, apiKey: KEY });
    const created = await unwrap(
      parley.api.POST('/v2/assistants', {
        body: {
          type: 'outbound',
          name: 'Browser call agent',
          is_recording: true,
          agent: {
            prompt: 'Be brief.',
            greeting_message: GREETING,
            greeting_message_mode: 'agent_static',
            voice_id: 'kal16',
          },
        },
      }),
    );
    agentId = created.model_id;

    // The fake microphone: 4 s of silence (the greeting plays meanwhile), the sentence, 3 s of
    // silence; Chromium loops it. 48 kHz, as a sound card gives.
    audioDir = testAudioDir();
    const clip = fliteClip(audioDir, CALLER_LINE, 'caller').samples;
    const padded = new Int16Array(16000 * 4 + clip.length + 16000 * 3);
    padded.set(clip, 16000 * 4);
    const wav16 = join(audioDir, 'caller-16k.wav');
    const wav = join(audioDir, 'microphone.wav');
    writeFileSync(wav16, monoWav(padded));
    execFileSync('sox', ['-D', '-V1', wav16, '-r', '48000', wav]);

    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium(fakeMicrophone(wav));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (audioDir) rmSync(audioDir, { recursive: true, force: true });
  });

  /** A signed-in page; what it logs as errors (a CSP refusal among them) and failed requests go to `errors`. */
  async function signedIn(errors: string[], microphone = true): Promise<Page> {
    // The microphone is allowed as a user allows it in the browser's prompt; without, headless
    // Chromium refuses it as a user would (no --use-fake-ui-for-media-stream, which allows all).
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      permissions: microphone ? ['microphone'] : [],
    });
    const page = await context.newPage();
    page.on('console', (m) => {
      // The server has no favicon: the browser's own request for it is not the page's.
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico'))
        errors.push(`${m.text()} (${m.location().url})`);
    });
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('response', (r) => {
      if (r.status() >= 400) errors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await page.goto(url);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    return page;
  }

  it("calls the agent from the page: the caller's words show live, then on the call's page", async () => {
    const errors: string[] = [];
    const page = await signedIn(errors);
    await page.goto(`${url}/#/agents/${agentId}/test`);
    await page.getByRole('heading', { name: 'Test in the browser' }).waitFor();
    await page.getByRole('button', { name: 'Call', exact: true }).click();

    // The call started: its page is linked at once.
    const callLink = page.getByRole('link', { name: /The call’s page/ });
    await callLink.waitFor({ timeout: 30_000 });
    const callHref = await callLink.getAttribute('href');
    const callId = /^#\/calls\/([0-9a-f-]{36})$/.exec(callHref ?? '')?.[1];
    expect(callId, String(callHref)).toBeDefined();
    /** What the page and the call's record show, for a failure's message. */
    const state = async () => {
      const call = (
        await unwrap(parley.api.GET('/v2/calls/{call_id}', { params: { path: { call_id: callId! } } }))
      ).calls[0];
      const shown = await page.locator('main').innerText();
      return `the page shows ${JSON.stringify(shown)}; the call is ${JSON.stringify({
        status: call?.status,
        error: call?.error_message,
        reason: call?.end_call_reason,
      })}; page errors ${JSON.stringify(errors)}`;
    };

    const transcript = page.getByRole('list', { name: 'Live transcript' });
    await transcript.getByText(GREETING).waitFor({ timeout: 30_000 });
    // The caller's line: the fake microphone's sentence, recognized by the agent's PocketSphinx.
    const callerLines = transcript.locator('li.caller');
    await expect
      .poll(async () => found(CALLER_WORDS, (await callerLines.allTextContents()).join(' ')), {
        timeout: 60_000,
        interval: 250,
      })
      .toBeGreaterThanOrEqual(4)
      .catch(async (err: unknown) => {
        throw new Error(`${String(err)}: ${await state()}`);
      });
    // The agent answered it, and the page measured how long that took to be heard.
    await transcript.locator('li.agent .latency').first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(SHOTS, '11-test-call-live.png'), fullPage: true });

    await page.getByRole('button', { name: 'Hang up' }).click();
    await page.getByRole('status').getByText('The call ended.').waitFor();
    // No error when the page hung up itself.
    expect(await page.getByRole('alert').count()).toBe(0);
    // The record, once final: its per-turn latency, and the link to its page.
    await page.getByRole('heading', { name: /Per-turn latency/ }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(SHOTS, '12-test-call-ended.png'), fullPage: true });

    const record = (
      await unwrap(parley.api.GET('/v2/calls/{call_id}', { params: { path: { call_id: callId! } } }))
    ).calls[0]!;
    expect(record).toMatchObject({ status: 'completed', type_of_call: 'web' });
    await page.getByRole('link', { name: 'Open the call’s page' }).click();
    await page.waitForURL(`${url}/#/calls/${callId}`);
    await page.getByRole('heading', { name: 'Call', exact: true }).waitFor();
    const section = page.getByRole('region', { name: 'Transcript' });
    await section.getByText(GREETING).waitFor();
    // Line by line: the section's whole text would run the words of two lines together.
    const shown = (await section.locator('li').allTextContents()).join('\n');
    expect(
      found(CALLER_WORDS, shown),
      `call page: ${shown}; record: ${record.transcript}`,
    ).toBeGreaterThanOrEqual(4);
    // The recording plays from a chosen line: the caller's line moves the player to where it
    // starts, plays, and is marked as the line playing.
    const player = page.getByRole('region', { name: 'Recording' }).locator('audio');
    const audio = () =>
      player.evaluate((el) => {
        const a = el as unknown as { duration: number; currentTime: number; paused: boolean };
        return { duration: a.duration, currentTime: a.currentTime, paused: a.paused };
      });
    await expect.poll(async () => (await audio()).duration, { timeout: 10_000 }).toBeGreaterThan(4);
    const callerLine = section.locator('li').filter({ hasText: 'Caller' }).first();
    const startsAt = await callerLine.locator('.hint').textContent();
    const [minutes, seconds] = (startsAt ?? '').trim().split(':').map(Number);
    await callerLine.getByRole('button').click();
    await expect.poll(async () => (await audio()).paused, { timeout: 10_000 }).toBe(false);
    const { currentTime } = await audio();
    expect(currentTime, `the line shows ${startsAt}`).toBeGreaterThanOrEqual(minutes! * 60 + seconds! - 1);
    await expect.poll(() => callerLine.getAttribute('aria-current'), { timeout: 5_000 }).toBe('true');
    await page.screenshot({ path: join(SHOTS, '13-call-recording-playing.png'), fullPage: true });
    // Nothing refused: no CSP violation (the socket is 'self'), no failed request.
    expect(errors).toEqual([]);
    await page.context().close();
  }, 150_000);

  it("calls in Opus, encoded and decoded by the browser's WebCodecs: the greeting, then the caller's words", async () => {
    const errors: string[] = [];
    const page = await signedIn(errors);
    await page.goto(`${url}/#/agents/${agentId}/test`);
    await page.getByLabel('Audio').selectOption('opus');
    const started = page.waitForRequest((r) => r.url().endsWith('/v2/calls/outbound-test-ws-media'));
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    expect((await started).postDataJSON()).toMatchObject({ wsMediaCodec: 'opus', wsMediaFraming: 'payload' });
    const transcript = page.getByRole('list', { name: 'Live transcript' });
    await transcript.getByText(GREETING).waitFor({ timeout: 30_000 });
    // The agent's PocketSphinx heard the page's Opus packets...
    await expect
      .poll(
        async () => found(CALLER_WORDS, (await transcript.locator('li.caller').allTextContents()).join(' ')),
        {
          timeout: 60_000,
          interval: 250,
        },
      )
      .toBeGreaterThanOrEqual(4);
    // ...and the page decoded the agent's: its answer was heard here, so it has a latency.
    await transcript.locator('li.agent .latency').first().waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Hang up' }).click();
    await page.getByRole('status').getByText('The call ended.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 150_000);

  it("says in words why a call could not start: the microphone refused, the API's refusal", async () => {
    // An agent deleted after its page opened: the API refuses the call, naming the field.
    const gone = await unwrap(
      parley.api.POST('/v2/assistants', {
        body: { type: 'outbound', name: 'Soon gone', agent: { prompt: 'Be brief.' } },
      }),
    );
    const errors: string[] = [];
    const calls = async () =>
      (await unwrap(parley.api.GET('/v2/calls', { params: { query: {} } }))).pagination.total_records;
    const before = await calls();

    // The microphone refused: said so, and no call is started.
    const refusing = await signedIn(errors, false);
    await refusing.goto(`${url}/#/agents/${gone.model_id}/test`);
    await refusing.getByRole('button', { name: 'Call', exact: true }).click();
    await expect
      .poll(() => refusing.getByRole('alert').allTextContents(), { timeout: 10_000 })
      .toEqual([
        "The microphone was refused. Allow it for this page in the browser's site settings, then call again.",
      ]);
    await refusing.getByRole('button', { name: 'Call', exact: true }).waitFor();
    expect(await calls()).toBe(before);
    await refusing.context().close();

    // The agent deleted after its page opened: the API's refusal, in its words.
    const page = await signedIn(errors);
    await page.goto(`${url}/#/agents/${gone.model_id}/test`);
    await page.getByRole('heading', { name: 'Test in the browser' }).waitFor();
    await unwrap(
      parley.api.DELETE('/v2/assistants/{model_id}', { params: { path: { model_id: gone.model_id } } }),
    );
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await expect
      .poll(() => page.getByRole('alert').allTextContents(), { timeout: 10_000 })
      .toEqual([`The call was refused: body.modelId: agent ${gone.model_id} not found`]);
    await page.getByRole('button', { name: 'Call', exact: true }).waitFor();
    // The one failed request is the refused start.
    expect(errors).toEqual([
      expect.stringMatching(/^400 POST .*\/v2\/calls\/outbound-test-ws-media$/),
      expect.stringMatching(/status of 400/),
    ]);
    expect(await calls()).toBe(before);
    await page.context().close();
  });

  it('chats with the agent in text, and starts a new chat', async () => {
    const errors: string[] = [];
    const page = await signedIn(errors);
    await page.goto(`${url}/#/agents/${agentId}/chat`);
    await page.getByRole('heading', { name: 'Chat with the agent' }).waitFor();
    const log = page.getByRole('list', { name: 'Chat' });
    await log.getByText(GREETING).waitFor();
    const firstId = await page.getByText(/^Chat [0-9a-f-]{36}$/).textContent();

    await page.getByLabel('Message').fill('Can I book a table for two?');
    await page.getByRole('button', { name: 'Send' }).click();
    await log.locator('li.you').getByText('Can I book a table for two?').waitFor();
    await expect.poll(() => log.locator('li.agent:not([aria-busy])').count()).toBe(2);
    const chatId = firstId!.replace('Chat ', '');
    const chat = await unwrap(
      parley.api.GET('/v2/chat/{chat_id}', { params: { path: { chat_id: chatId } } }),
    );
    expect(chat.model_id).toBe(agentId);
    expect(chat.conversation_history.map((m) => m.message)).toContain('Can I book a table for two?');
    const answer = chat.conversation_history.at(-1)!.message;
    await log.getByText(answer).waitFor();
    await page.screenshot({ path: join(SHOTS, '13-chat.png'), fullPage: true });

    await page.getByRole('button', { name: 'New chat' }).click();
    await expect.poll(() => page.getByText(/^Chat [0-9a-f-]{36}$/).textContent()).not.toBe(firstId);
    await log.getByText(GREETING).waitFor();
    expect(await log.locator('li.you').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);
});
