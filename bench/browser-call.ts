// Case `browser-call`: the console's browser test call against the WebSocket media path without a
// browser, in one run on one server (issue 24: "the agent's answer starts within the same latency
// the WS media path has without a browser").
//
// One Parley server in a child process, as `parley serve` runs it (offline speech: energy VAD,
// PocketSphinx, flite; the builtin model), with an agent whose static greeting is followed by the
// caller's line. Rounds alternate the two clients, so other work on the machine falls on both:
// - node: the SDK's startWebCall (L16, bare payloads) from this process, fed the microphone's
//   audio from a WAV at 20 ms a frame;
// - browser: headless Chromium on the console's "Test in the browser" page, its fake microphone
//   playing the same audio (48 kHz, as a sound card gives; the page resamples to 16 kHz).
// Each call is measured the same way, by the console's ResponseTimer: from the last caller frame
// with speech sent to the agent's first frame of its answer received. Beside it, the server's own
// figure for the same turn (the record's per_turn total_ms: end of speech to first frame out).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import WebSocket from 'ws';
import { buildConsole } from '../console/build.mjs';
import { createParley, ResponseTimer, startWebCall, unwrap, type Parley } from '../sdk/index.ts';
import { fliteClip, monoWav } from '../src/providers/testing/index.ts';
import { fakeMicrophone, launchChromium } from '../test/console/chromium.ts';
import type { CaseContext } from './api.ts';
import {
  BENCH_API_KEY,
  freePort,
  intEnv,
  machine,
  markdownTable,
  onCleanup,
  startServer,
  tempDir,
  textTable,
  writeResultsSection,
} from './lib.ts';

const ROUNDS = () => intEnv('BENCH_BROWSER_CALL_ROUNDS', 5, 1, 50);
export const browserCallPhaseSeconds = (): number => 60 + ROUNDS() * 2 * 40;

const GREETING = 'Hello, thank you for calling. How can I help you today?';
const CALLER_LINE = 'I would like to book an appointment for tomorrow morning.';
/** Silence before the line (the greeting plays meanwhile) and after it, in seconds. */
const LEAD_S = 4;
const TAIL_S = 3;
const ANSWER_TIMEOUT_MS = 45_000;

type Path = 'node' | 'browser';
interface Round {
  path: Path;
  /** Heard at the client: last speech frame sent to the answer's first frame received (ms). */
  clientMs: number;
  /** The server's figure for that turn (per_turn total_ms), when the record has it. */
  serverMs: number | null;
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const fmt = (n: number | null) => (n === null || Number.isNaN(n) ? '—' : n.toFixed(0));

/** The server's total_ms for the first answer of the call, once its record is final. */
async function serverAnswerMs(parley: Parley, callId: string): Promise<number | null> {
  for (let i = 0; i < 60; i += 1) {
    const call = (
      await unwrap(parley.api.GET('/v2/calls/{call_id}', { params: { path: { call_id: callId } } }))
    ).calls[0];
    if (call && ['completed', 'failed', 'canceled'].includes(call.status)) {
      const turns = (call.quality as { per_turn?: { kind?: string; total_ms?: number | null }[] } | null)
        ?.per_turn;
      return turns?.find((t) => t.kind === 'reply' && typeof t.total_ms === 'number')?.total_ms ?? null;
    }
    await sleep(500);
  }
  return null;
}

/** One call from this process through the SDK, the microphone a loop over `audio` (16 kHz). */
async function nodeCall(parley: Parley, modelId: string, audio: Int16Array): Promise<Round> {
  const timer = new ResponseTimer();
  let answeredMs: number | null = null;
  const call = await startWebCall(parley, {
    modelId,
    codec: 'l16',
    framing: 'payload',
    WebSocket,
    onAudio: () => {
      const ms = timer.heard(performance.now());
      if (ms !== null && answeredMs === null) answeredMs = ms;
    },
    onTranscript: (line) => {
      if (line.speaker === 'caller') timer.callerLine();
    },
  });
  const frame = new Int16Array(call.frameSamples);
  const start = performance.now();
  try {
    for (let slot = 0; answeredMs === null; slot += 1) {
      if (performance.now() - start > ANSWER_TIMEOUT_MS) throw new Error('node: no answer in time');
      const wait = start + slot * 20 - performance.now();
      if (wait > 0) await sleep(wait);
      const at = (slot * frame.length) % audio.length;
      frame.set(audio.subarray(at, at + frame.length));
      if (!call.send(frame)) throw new Error('node: the call ended before the answer');
      timer.sent(frame, performance.now());
    }
  } finally {
    call.hangUp();
    await call.closed;
  }
  return { path: 'node', clientMs: answeredMs, serverMs: await serverAnswerMs(parley, call.callId) };
}

/** One call from the console's test-call page in Chromium. */
async function browserCall(browser: Browser, url: string, parley: Parley, modelId: string): Promise<Round> {
  const context = await browser.newContext({ permissions: ['microphone'] });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.getByLabel('API key').fill(BENCH_API_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    await page.goto(`${url}/#/agents/${modelId}/test`);
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    const link = page.getByRole('link', { name: /The call’s page/ });
    await link.waitFor({ timeout: 30_000 });
    const callId = /([0-9a-f-]{36})$/.exec((await link.getAttribute('href')) ?? '')?.[1];
    if (!callId) throw new Error('browser: no call id on the page');
    const latency = page.getByRole('list', { name: 'Live transcript' }).locator('li.agent .latency').first();
    await latency.waitFor({ timeout: ANSWER_TIMEOUT_MS });
    const text = (await latency.textContent()) ?? '';
    const clientMs = Number(/after ([\d,]+) ms/.exec(text)?.[1]?.replace(/,/g, ''));
    if (!Number.isFinite(clientMs)) throw new Error(`browser: cannot read "${text}"`);
    await page.getByRole('button', { name: 'Hang up' }).click();
    await page.getByRole('status').getByText('The call ended.').waitFor();
    return { path: 'browser', clientMs, serverMs: await serverAnswerMs(parley, callId) };
  } finally {
    await context.close();
  }
}

export async function runBrowserCallCase(ctx: CaseContext): Promise<void> {
  const rounds = ROUNDS();
  await buildConsole();
  const audioDir = tempDir('browser-call-audio');
  const clip = fliteClip(audioDir, CALLER_LINE, 'caller').samples;
  const audio = new Int16Array(16000 * (LEAD_S + TAIL_S) + clip.length);
  audio.set(clip, 16000 * LEAD_S);
  const wav16 = join(audioDir, 'caller-16k.wav');
  const wav48 = join(audioDir, 'microphone.wav');
  writeFileSync(wav16, monoWav(audio));
  execFileSync('sox', ['-D', '-V1', wav16, '-r', '48000', wav48]);

  const port = await freePort();
  const server = await startServer({
    name: 'parley',
    script: 'bench/servers/parley.ts',
    startTimeoutMs: 60_000,
    env: {
      PORT: String(port),
      PARLEY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      PARLEY_DATA_DIR: tempDir('browser-call-data'),
      PARLEY_DATABASE_URL: '',
      PARLEY_BOOTSTRAP_API_KEY: BENCH_API_KEY,
      PARLEY_LOG_LEVEL: 'warn',
      PARLEY_SIP: 'off',
      PARLEY_SIM_MODE: 'text',
    },
  });
  const parley = createParley({ baseUrl: server.url, apiKey: BENCH_API_KEY });
  const agent = await unwrap(
    parley.api.POST('/v2/assistants', {
      body: {
        type: 'outbound',
        name: 'browser-call bench',
        agent: {
          prompt: 'Be brief.',
          greeting_message: GREETING,
          greeting_message_mode: 'agent_static',
          voice_id: 'kal16',
        },
      },
    }),
  );

  const browser = await launchChromium(fakeMicrophone(wav48));
  onCleanup(() => browser.close());

  const results: Round[] = [];
  for (let i = 0; i < rounds; i += 1) {
    // Alternate which goes first, so neither always follows the other.
    const order: Path[] = i % 2 === 0 ? ['node', 'browser'] : ['browser', 'node'];
    for (const path of order) {
      const r =
        path === 'node'
          ? await nodeCall(parley, agent.model_id, audio)
          : await browserCall(browser, server.url, parley, agent.model_id);
      results.push(r);
      console.log(`round ${i + 1} ${path}: heard after ${fmt(r.clientMs)} ms (server ${fmt(r.serverMs)} ms)`);
    }
  }

  const of = (path: Path) => results.filter((r) => r.path === path);
  const summary = (['node', 'browser'] as const).map((path) => {
    const rs = of(path);
    const client = median(rs.map((r) => r.clientMs));
    const server = median(rs.flatMap((r) => (r.serverMs === null ? [] : [r.serverMs])));
    return [path, String(rs.length), fmt(client), fmt(server), fmt(client - server)];
  });
  const difference = median(of('browser').map((r) => r.clientMs)) - median(of('node').map((r) => r.clientMs));
  const serverDifference =
    median(of('browser').flatMap((r) => (r.serverMs === null ? [] : [r.serverMs]))) -
    median(of('node').flatMap((r) => (r.serverMs === null ? [] : [r.serverMs])));
  const header = [
    'Client',
    'Calls',
    'Heard at the client, median ms',
    'Server total_ms, median',
    'Client − server ms',
  ];
  console.log(textTable(header, summary));
  console.log(
    `browser − node: ${fmt(difference)} ms at the client, ${fmt(serverDifference)} ms on the server`,
  );

  writeResultsSection(
    'browser-call',
    `## Case \`browser-call\`: the console's browser test call against the WS media path without a browser

- Date: ${new Date().toISOString()}
- Machine: ${machine()}
- Command: \`${ctx.command} browser-call\`
- Target (issue 24): the browser test call's answer starts within the latency the WS media path has
  without a browser, measured in one run.
- Setup: one Parley server (\`bench/servers/parley.ts\`, as \`parley serve\` builds it: offline speech,
  builtin model) in a child process; an agent with a static greeting; the caller says "${CALLER_LINE}"
  (flite) ${LEAD_S} s into the call. ${rounds} rounds, each one call per client, the order alternating.
  Node: the SDK's \`startWebCall\` (L16, bare payloads), the audio paced at 20 ms. Browser: headless
  Chromium on the console's test-call page, its fake microphone playing the same audio at 48 kHz.
- Measure: the console's \`ResponseTimer\` on both (last caller frame with speech sent, to the agent's
  first answer frame received); the server's \`per_turn\` \`total_ms\` of the same turn beside it.

${markdownTable(header, summary)}

**Browser − node: ${fmt(difference)} ms** at the client (medians; ${fmt(serverDifference)} ms in the
server's own figure for the same turns).

| Round | Client | Heard at the client ms | Server total_ms |
| --- | --- | --- | --- |
${results.map((r, i) => `| ${Math.floor(i / 2) + 1} | ${r.path} | ${fmt(r.clientMs)} | ${fmt(r.serverMs)} |`).join('\n')}
`,
  );
  await server.stop();
}
