// Case `chat`: platform overhead per chat message, with a zero-latency fake model, against a bare
// Fastify baseline.
//
// Parley runs in a child process (bench/servers/parley-chat.ts) on the embedded SQLite store in a
// fresh temp data dir, with every agent on a model that answers at once (bench/zero-llm.ts). One
// chat agent is seeded, then chats are created over HTTP (POST /v2/chat/{uuid}). Each message
// (POST /v2/chat/{id}/messages) goes to the next chat of a window of CHATS_PER_WINDOW chats, round
// robin; after MAX_TURNS_PER_CHAT rounds the window is retired and fresh chats take over, so a
// chat's history stays within 0..MAX_TURNS_PER_CHAT-1 earlier turns and concurrent connections
// never hit the same chat. The baseline is a bare Fastify 5 app answering the same POST route with
// the body Parley answered, from memory. Both servers get the same requests, in the same phases:
// autocannon warm-up (discarded), autocannon with 1 connection (latency), sequential fetch() timed
// with performance.now() (latency cross-check), autocannon with BENCH_CONNECTIONS connections
// (messages per second). Latency percentiles come from every response's own hrtime duration
// (autocannon's histogram keeps whole milliseconds only).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { CaseContext } from './api.ts';
import {
  BENCH_API_KEY,
  freePort,
  machine,
  markdownTable,
  startParley,
  startServer,
  tempDir,
  textTable,
  writeResultsSection,
  type ChildServer,
} from './lib.ts';
import { ZERO_LLM_REPLY } from './zero-llm.ts';

export const TARGET_OVERHEAD_P50_MS = 3;
const API_KEY = BENCH_API_KEY;
const HOST = '127.0.0.1';
/** Chats in one rotation window: a message goes to each in turn. */
const CHATS_PER_WINDOW = 200;
/** Rounds over a window before fresh chats take over: earlier turns per chat stay below this. */
const MAX_TURNS_PER_CHAT = 50;
/** Sequential fetch() messages per server for the performance.now() cross-check. */
const FETCH_MESSAGES = 2000;
/** Messages per second assumed before anything was measured (to size the warm-up's chats). */
const INITIAL_RATE_GUESS = 5000;
/** Chats are provisioned for this many times the expected messages of a phase. */
const PROVISION_FACTOR = 1.5;
const CREATE_CONCURRENCY = 10;

const USER_MESSAGES = [
  'Hi, I would like to book a cleaning for next week if possible.',
  'Tuesday morning would be best, but I can also do Wednesday afternoon.',
  'My name is Jordan Ellis and my date of birth is March 3rd, 1988.',
  'Do you take Delta Dental insurance? I switched plans in January.',
  'Can you remind me how long the appointment usually takes?',
  'Is there parking near the office, or should I take the bus?',
];
const BODIES = USER_MESSAGES.map((message) => JSON.stringify({ message }));

const CHAT_AGENT = {
  type: 'chat',
  name: 'Bench chat agent',
  agent: {
    prompt:
      'You are Maya, the friendly online assistant of Northwind Dental. Help {customer_name} book, move ' +
      'or cancel appointments, answer questions about opening hours (Monday to Friday, 8:00 to 18:00), ' +
      'insurance (most major plans, including Delta Dental and Cigna) and directions. Offer at most three ' +
      'open slots at a time, confirm the patient full name and date of birth before booking, never give ' +
      'medical advice, and if the patient asks for a person, say a team member will reply within one ' +
      'business day. Keep answers short and warm, and write in the language of the patient.',
    greeting_message: 'Hi {customer_name}, this is Maya from Northwind Dental. How can I help you today?',
    greeting_message_mode: 'agent_static',
    language: 'en-US',
    timezone: 'America/New_York',
    end_call_reasons_v2: [
      {
        reason: 'The patient has booked or confirmed an appointment.',
        closing_message_mode: 'static',
        closing_message: 'Thank you, we look forward to seeing you. Goodbye!',
      },
      {
        reason: 'The patient asks to stop the conversation.',
        closing_message_mode: 'static',
        closing_message: 'Of course. Have a nice day!',
      },
    ],
  },
};

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const ms = (n: number) => n.toFixed(3);

// ---- chats and their rotation --------------------------------------------------------------------

interface Message {
  path: string;
  body: string;
  /** Turns the chat had before this message. */
  earlierTurns: number;
}

/**
 * Hands out messages round robin over a window of chats; after MAX_TURNS_PER_CHAT rounds the next
 * window (fresh chats) takes over. Windows are provisioned ahead of a phase; should a phase outrun
 * them, the last window goes on past the cap (and the reported history range shows it).
 */
class Rotation {
  readonly #windows: string[][] = [];
  #current = 0;
  #sent = 0;
  #minEarlier = Infinity;
  #maxEarlier = -Infinity;
  #overran = 0;

  constructor(private readonly createChats: (n: number) => Promise<string[]>) {}

  get chatsCreated(): number {
    return this.#windows.length * CHATS_PER_WINDOW;
  }

  /** Starts a phase on fresh chats, enough for `expectedMessages`. */
  async provision(expectedMessages: number): Promise<void> {
    const windows = Math.max(1, Math.ceil(expectedMessages / (CHATS_PER_WINDOW * MAX_TURNS_PER_CHAT)));
    this.#current = this.#windows.length;
    this.#sent = 0;
    for (let i = 0; i < windows; i++) this.#windows.push(await this.createChats(CHATS_PER_WINDOW));
  }

  /** Forgets the history range seen so far (before a measured phase). */
  resetStats(): void {
    this.#overran = 0;
    this.#minEarlier = Infinity;
    this.#maxEarlier = -Infinity;
  }

  get earlierTurns(): { min: number; max: number } {
    return { min: this.#minEarlier, max: this.#maxEarlier };
  }

  get overran(): number {
    return this.#overran;
  }

  next(): Message {
    const perWindow = CHATS_PER_WINDOW * MAX_TURNS_PER_CHAT;
    let w = this.#current + Math.floor(this.#sent / perWindow);
    let inWindow = this.#sent % perWindow;
    if (w >= this.#windows.length) {
      this.#overran++;
      w = this.#windows.length - 1;
      inWindow = this.#sent - (w - this.#current) * perWindow;
    }
    const chat = this.#windows[w]![inWindow % CHATS_PER_WINDOW]!;
    const earlierTurns = Math.floor(inWindow / CHATS_PER_WINDOW);
    if (earlierTurns < this.#minEarlier) this.#minEarlier = earlierTurns;
    if (earlierTurns > this.#maxEarlier) this.#maxEarlier = earlierTurns;
    const body = BODIES[this.#sent % BODIES.length]!;
    this.#sent++;
    return { path: `/v2/chat/${chat}/messages`, body, earlierTurns };
  }
}

async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

/** Creates `n` chats with the agent over HTTP; resolves to their ids. */
async function createChats(
  baseUrl: string,
  auth: Record<string, string>,
  agentId: string,
  n: number,
): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const id = ids[next++]!;
      const { status, text } = await postJson(`${baseUrl}/v2/chat/${id}`, auth, {
        model_id: agentId,
        metadata: { customer_name: 'Jordan', source: 'website' },
      });
      if (status !== 200) throw new Error(`creating chat ${id}: HTTP ${status}: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
  return ids;
}

// ---- measurement ---------------------------------------------------------------------------------

interface Latency {
  p50Ms: number;
  p99Ms: number;
  count: number;
}

function percentiles(samples: number[]): Latency {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
  return { p50Ms: at(50), p99Ms: at(99), count: sorted.length };
}

interface LoadResult extends Latency {
  msgsPerSec: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** One autocannon run of chat messages: POSTs from `rotation`, latencies from each response. */
async function load(
  baseUrl: string,
  headers: Record<string, string>,
  rotation: Rotation,
  connections: number,
  durationS: number,
): Promise<LoadResult> {
  if (new URL(baseUrl).hostname !== HOST) throw new Error(`refusing to load ${baseUrl}: only ${HOST}`);
  const samples: number[] = [];
  const instance = autocannon({
    url: baseUrl,
    connections,
    duration: durationS,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        setupRequest: (request) => {
          const m = rotation.next();
          return { ...request, path: m.path, body: m.body };
        },
      },
    ],
  });
  instance.on('response', (_client, status, _bytes, responseTimeMs) => {
    if (status >= 200 && status < 300) samples.push(responseTimeMs);
  });
  const r = await instance;
  return {
    ...percentiles(samples),
    msgsPerSec: r.requests.average,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

/** `count` sequential messages with fetch(), each timed with performance.now(). */
async function sequentialFetch(
  baseUrl: string,
  headers: Record<string, string>,
  rotation: Rotation,
  count: number,
): Promise<Latency & { failures: number }> {
  const samples: number[] = [];
  let failures = 0;
  const h = { ...headers, 'content-type': 'application/json' };
  for (let i = 0; i < count; i++) {
    const m = rotation.next();
    const t0 = performance.now();
    const res = await fetch(`${baseUrl}${m.path}`, { method: 'POST', headers: h, body: m.body });
    await res.text();
    const t = performance.now() - t0;
    if (res.status === 200) samples.push(t);
    else failures++;
  }
  return { ...percentiles(samples), failures };
}

interface ServerRun {
  warmup: LoadResult | null;
  latency: LoadResult;
  fetch: Latency & { failures: number };
  throughput: LoadResult;
  history: { min: number; max: number };
  overran: number;
  chats: number;
}

async function runPhases(
  name: string,
  server: ChildServer,
  headers: Record<string, string>,
  rotation: Rotation,
  ctx: CaseContext,
  phaseS: number,
): Promise<ServerRun> {
  const { settings } = ctx;
  let rate = INITIAL_RATE_GUESS;
  let warmup: LoadResult | null = null;
  if (settings.warmupS > 0) {
    await rotation.provision(rate * settings.warmupS * PROVISION_FACTOR);
    console.log(`${name}: warm-up, ${settings.connections} connections, ${settings.warmupS} s...`);
    warmup = await load(server.url, headers, rotation, settings.connections, settings.warmupS);
    rate = warmup.msgsPerSec;
  }
  await rotation.provision(rate * phaseS * PROVISION_FACTOR);
  rotation.resetStats();
  console.log(`${name}: latency, 1 connection, ${phaseS} s...`);
  const latency = await load(server.url, headers, rotation, 1, phaseS);

  await rotation.provision(FETCH_MESSAGES);
  console.log(`${name}: ${FETCH_MESSAGES} sequential fetch() messages...`);
  const fetchLatency = await sequentialFetch(server.url, headers, rotation, FETCH_MESSAGES);

  await rotation.provision(Math.max(rate, latency.msgsPerSec) * phaseS * PROVISION_FACTOR);
  console.log(`${name}: throughput, ${settings.connections} connections, ${phaseS} s...`);
  const throughput = await load(server.url, headers, rotation, settings.connections, phaseS);
  return {
    warmup,
    latency,
    fetch: fetchLatency,
    throughput,
    history: rotation.earlierTurns,
    overran: rotation.overran,
    chats: rotation.chatsCreated,
  };
}

// ---- the case ------------------------------------------------------------------------------------

/** Seconds of load per measured autocannon phase: half of BENCH_DURATION_S (5 s by default). */
export const chatPhaseSeconds = (durationS: number) => Math.max(1, Math.round(durationS / 2));

export async function runChatCase(ctx: CaseContext): Promise<void> {
  const { settings } = ctx;
  const started = new Date();
  const phaseS = chatPhaseSeconds(settings.durationS);
  const auth = { authorization: `Bearer ${API_KEY}` };

  // 1. Parley on the zero-latency model, on SQLite in a fresh data dir.
  const parley = await startParley('parley-chat', 'bench/servers/parley-chat.ts');

  // 2. The agent, and one message to check the answer and capture the body for the baseline.
  const created = await postJson(`${parley.url}/v2/assistants`, auth, CHAT_AGENT);
  if (created.status !== 200) throw new Error(`creating the agent: HTTP ${created.status}: ${created.text}`);
  const agentId = (JSON.parse(created.text) as { response?: { model_id?: string } }).response?.model_id;
  if (!agentId) throw new Error(`creating the agent: no model_id in ${created.text}`);
  const [probeChat] = await createChats(parley.url, auth, agentId, 1);
  const probe = await postJson(`${parley.url}/v2/chat/${probeChat}/messages`, auth, {
    message: USER_MESSAGES[0],
  });
  const probeBody = JSON.parse(probe.text) as {
    status?: string;
    response?: { agent_message?: string; current_state?: string };
  };
  if (
    probe.status !== 200 ||
    probeBody.response?.agent_message !== ZERO_LLM_REPLY ||
    probeBody.response.current_state !== 'ongoing'
  ) {
    throw new Error(`probe message: unexpected answer HTTP ${probe.status}: ${probe.text}`);
  }

  // 3. Load Parley.
  const parleyStart = performance.now();
  const parleyRotation = new Rotation((n) => createChats(parley.url, auth, agentId, n));
  const p = await runPhases('parley', parley, auth, parleyRotation, ctx, phaseS);
  const parleyWallS = (performance.now() - parleyStart) / 1000;
  await parley.stop();

  // 4. The baseline answers the same route with the body Parley answered.
  const routesFile = join(tempDir('chat-bare'), 'routes.json');
  writeFileSync(
    routesFile,
    JSON.stringify([{ method: 'POST', path: '/v2/chat/:chat_id/messages', body: probeBody }]),
  );
  const bare = await startServer({
    name: 'bare',
    script: 'bench/servers/bare.ts',
    env: { PORT: String(await freePort()), BENCH_BARE_ROUTES: routesFile },
  });
  console.log(`baseline listening on ${bare.url} (pid ${bare.pid})`);
  const bareProbe = await postJson(`${bare.url}/v2/chat/${randomUUID()}/messages`, auth, {
    message: USER_MESSAGES[0],
  });
  if (bareProbe.status !== 200 || bareProbe.text.length !== probe.text.length) {
    throw new Error(
      `baseline probe: HTTP ${bareProbe.status}, ${bareProbe.text.length} bytes, expected 200 and ${probe.text.length}`,
    );
  }
  // Chats are only ids there: nothing to create.
  const bareRotation = new Rotation(async (n) => Array.from({ length: n }, () => randomUUID()));
  const b = await runPhases('baseline', bare, auth, bareRotation, ctx, phaseS);

  // 5. Check and report.
  const failures: string[] = [];
  for (const [name, run] of [
    ['Parley', p],
    ['baseline', b],
  ] as const) {
    for (const [phase, m] of [
      ['warm-up', run.warmup],
      ['latency', run.latency],
      ['throughput', run.throughput],
    ] as const) {
      if (m && (m.non2xx > 0 || m.errors > 0)) {
        failures.push(`${name} ${phase}: ${m.non2xx} non-2xx, ${m.errors} errors (${m.timeouts} timeouts)`);
      }
    }
    if (run.fetch.failures > 0) failures.push(`${name} fetch: ${run.fetch.failures} non-200`);
  }
  if (failures.length > 0) throw new Error(`not all responses were 2xx:\n  ${failures.join('\n  ')}`);

  const overheadP50 = p.latency.p50Ms - b.latency.p50Ms;
  const overheadP99 = p.latency.p99Ms - b.latency.p99Ms;
  const fetchOverheadP50 = p.fetch.p50Ms - b.fetch.p50Ms;
  const fetchOverheadP99 = p.fetch.p99Ms - b.fetch.p99Ms;
  const ratio = p.throughput.msgsPerSec / b.throughput.msgsPerSec;
  const met = overheadP50 < TARGET_OVERHEAD_P50_MS && fetchOverheadP50 < TARGET_OVERHEAD_P50_MS;
  const conns = settings.connections;

  const header = [
    'Server',
    'p50 ms (1 conn)',
    'p99 ms (1 conn)',
    'p50 ms (fetch)',
    'p99 ms (fetch)',
    `Msgs/s (${conns} conns)`,
    `p50 ms (${conns} conns)`,
    `p99 ms (${conns} conns)`,
    'Messages measured',
  ];
  const row = (label: string, r: ServerRun) => [
    label,
    ms(r.latency.p50Ms),
    ms(r.latency.p99Ms),
    ms(r.fetch.p50Ms),
    ms(r.fetch.p99Ms),
    fmt(r.throughput.msgsPerSec),
    ms(r.throughput.p50Ms),
    ms(r.throughput.p99Ms),
    `${r.latency.count} + ${r.fetch.count} + ${r.throughput.count}`,
  ];
  const rows = [
    row('Parley', p),
    row('Baseline', b),
    [
      '**Parley − baseline**',
      `**${ms(overheadP50)}**`,
      ms(overheadP99),
      `**${ms(fetchOverheadP50)}**`,
      ms(fetchOverheadP99),
      `ratio ${fmt(ratio, 2)}`,
      ms(p.throughput.p50Ms - b.throughput.p50Ms),
      ms(p.throughput.p99Ms - b.throughput.p99Ms),
      '',
    ],
  ];
  const plain = rows.map((r) => r.map((c) => c.replaceAll('**', '')));
  console.log(`\n${textTable(header, plain)}\n`);

  const history =
    `${p.history.min}–${p.history.max} earlier turns per chat when a measured message arrived` +
    ` (a stored history of ${1 + 2 * p.history.min}–${1 + 2 * p.history.max} messages, greeting included)`;
  const overran =
    p.overran > 0
      ? ` **${p.overran} messages outran the provisioned chats** and went to chats past the cap.`
      : '';
  const section = `## Case \`chat\`: overhead per chat message (zero-latency model) vs. bare Fastify

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Command: \`${ctx.command}\`
- Parley: child process (bench/servers/parley-chat.ts), embedded SQLite in a fresh temp data dir,
  \`PARLEY_LOG_LEVEL=warn\`, every agent on a zero-latency fake model (bench/zero-llm.ts: a fixed
  ${ZERO_LLM_REPLY.length}-character reply in 4 text chunks, then \`done\`, no timers). One \`chat\` agent (prompt,
  static greeting, 2 end reasons); ${p.chats} chats created over HTTP (\`POST /v2/chat/{uuid}\`);
  \`POST /v2/chat/{id}/messages\` with the bootstrap key, ${USER_MESSAGES.length} user messages in turn.
- History: messages go round robin over windows of ${CHATS_PER_WINDOW} chats; after ${MAX_TURNS_PER_CHAT} rounds fresh chats take
  over, and each phase starts on fresh chats: ${history}.${overran}
- Baseline: child process, bare Fastify 5 (no plugins, auth or database) answering the same
  \`POST /v2/chat/:chat_id/messages\` requests with the body Parley answered (${probe.text.length} bytes), from memory.
- Load, per server, one after the other: autocannon warm-up with ${conns} connections for ${settings.warmupS} s
  (discarded); autocannon with 1 connection for ${phaseS} s (latency); ${FETCH_MESSAGES} sequential \`fetch()\` calls
  timed with \`performance.now()\` (latency cross-check); autocannon with ${conns} connections for ${phaseS} s
  (msgs/s = autocannon's mean of per-second samples). autocannon latencies are each response's own
  hrtime duration (its histogram keeps whole ms only). Phases last \`BENCH_DURATION_S\`/2 s each;
  \`BENCH_CONNECTIONS\`, \`BENCH_WARMUP_S\` also apply. Parley run wall time ${fmt(parleyWallS, 1)} s incl. chat creation.
- All responses were 2xx.
- Overhead p50 (Parley − baseline, 1 connection): ${ms(overheadP50)} ms with autocannon, ${ms(fetchOverheadP50)} ms with
  fetch(). Throughput ratio (Parley / baseline, ${conns} connections): ${fmt(ratio, 2)}.
- Target: p50 overhead < ${TARGET_OVERHEAD_P50_MS} ms — ${met ? 'met.' : '**not met**.'}

${markdownTable(header, rows)}

The machine is shared (other jobs may run), so absolute figures are noisy; the overhead compares
the two servers measured in the same run.
`;
  writeResultsSection('chat', section);
  console.log('wrote bench/RESULTS.md (section chat)');
  console.log(
    `overhead p50 ${ms(overheadP50)} ms (fetch ${ms(fetchOverheadP50)} ms), target < ${TARGET_OVERHEAD_P50_MS} ms: ${met ? 'met' : 'NOT met'}; ` +
      `${fmt(p.throughput.msgsPerSec)} vs ${fmt(b.throughput.msgsPerSec)} msgs/s (ratio ${fmt(ratio, 2)}); history ${p.history.min}–${p.history.max} earlier turns`,
  );
}
