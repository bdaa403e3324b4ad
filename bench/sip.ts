// Case `sip`: concurrent SIP calls from sipp into ONE Parley process, audio both ways.
//
// This process is Parley: the app as `parley serve` builds it (src/app.ts createApp, embedded
// SQLite in a temp dir, the bench API key), SIP on a free port and RTP on a port range of its own,
// with fake zero-latency speech (a loudness-gate VAD, fake STT and TTS that read and write data
// speech) and a fake model that answers every line at once. Per step, a fresh inbound agent and a
// SIP number whose trunk is 127.0.0.1 (so the allow-list admits sipp).
//
// Two child processes play the far ends, so that their work does not run here:
// - sipp (bench/sip-sipp.ts) places N concurrent inbound calls, signalling only: INVITE, ACK, the
//   call held for the whole step, BYE.
// - the RTP peers (bench/sip-peer.ts): the SDP of call k names port k of that process, which
//   streams the caller's audio (PCMU, silence or a line in data speech 500 ms after each agent
//   line) and stamps every packet of Parley's on arrival.
//
// Figures per step (calls started at PARLEY_BENCH_SIP_RATE a second, 3 s to settle, then the window):
// - Frame-send lateness, where Parley sends: the media worker's own counters (RtpMedia.sendTiming(),
//   src/telephony/rtp/send-timing.ts), read at both ends of the window: per packet, when it left
//   against its slot on the worker's 20 ms grid; per tick of the worker, when it woke.
// - Arrival lateness at the receiver: each packet's arrival against the 20 ms grid its RTP timestamp
//   says it belongs to, per call from its least-late packet: send lateness plus loopback and the
//   peers' own read delay.
// - Every call from sipp's one address: Parley's per-source limit is raised above sipp's rate
//   (PARLEY_SIP_RATE_LIMIT_PER_SECOND), else most INVITEs would come in late or never.
// - Loss: sequence numbers that never reached the peers; Parley's own link statistics for the other
//   direction (the calls' `quality.link`).
// - CPU: the Parley process (all its threads) and its main thread alone (/proc/self/task), over
//   the window; memory: heap + buffers and RSS after a full GC with the calls up, minus before.
// - The main thread's time per frame: its CPU over the window per call and 20 ms frame.
// - Platform share: from the caller line's end (its last frame due at the peer) to the reply's
//   first packet arriving at the peer, minus the patience wait (zero-latency fakes).
//
// Knobs: PARLEY_BENCH_SIP_STEPS (100,200), PARLEY_BENCH_SIP_STEP_S (20), PARLEY_BENCH_SIP_RATE (50).
// The WS media figures of the same run: run `npm run bench -- ws-media sip`; this case then puts the
// ws-media steps measured earlier in the same process beside its own (bench/ws-media.ts keeps them).
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApp, type App } from '../src/app.ts';
import { loadConfig, silentLogger } from '../src/core/index.ts';
import { createModelRouter, type ChatChunk, type LLM } from '../src/providers/index.ts';
import { createFakeSTT, createFakeTTS, createFakeVAD } from '../src/providers/testing/index.ts';
import {
  latenessAbove,
  latenessPercentile,
  timingSince,
  type LatenessCounts,
  type RtpSendTiming,
} from '../src/telephony/index.ts';
import { PATIENCE_MS } from '../src/voice/index.ts';
import type { CaseContext } from './api.ts';
import {
  BENCH_API_KEY,
  ROOT,
  freePort,
  intEnv,
  machine,
  markdownTable,
  onCleanup,
  stepsEnv,
  tempDir,
  textTable,
  writeResultsSection,
} from './lib.ts';
import type { FromPeer, PeerResult, ToPeer } from './sip-peer.ts';
import { startSippCallers } from './sip-sipp.ts';
import { collectGarbage, fmt, percentileOf } from './voice-stats.ts';
import { GREETING, REPLY } from './ws-media-client.ts';
import { wsMediaFigures, type WsMediaFigure } from './ws-media.ts';

const FRAME_MS = 20;
/** The RTP media's jitter buffer target, in frames (src/telephony/rtp/session.ts). */
const JITTER_FRAMES = 3;
const SETTLE_MS = 3_000;
const PATIENCE = 'low' as const;
const JITTER_TARGET_MS = 5;
const TARGET_CALLS = 200;
/** Lines that end this close to the window's end may have their reply after it: not counted. */
const REPLY_MARGIN_MS = 1_500;
/** After the window, before sipp's BYEs: the replies to the window's last lines. */
const HOLD_AFTER_MS = 3_000;
const PROMPT = 'You are a helpful scheduling agent for Northwind.';
const MiB = 2 ** 20;

interface Settings {
  steps: number[];
  stepS: number;
  rate: number;
}

function settings(): Settings {
  return {
    steps: stepsEnv('PARLEY_BENCH_SIP_STEPS', '100,200'),
    stepS: intEnv('PARLEY_BENCH_SIP_STEP_S', 20, 5, 300),
    rate: intEnv('PARLEY_BENCH_SIP_RATE', 50, 1, 500),
  };
}

/** Rough upper bound of the case's run time, in seconds, for the watchdog. */
export function sipPhaseSeconds(): number {
  const s = settings();
  return Math.ceil(
    s.steps.reduce(
      (sum, calls) => sum + calls / s.rate + (SETTLE_MS + HOLD_AFTER_MS) / 1000 + s.stepS + 60,
      10,
    ),
  );
}

/** Answers every line with REPLY at once, word by word. */
function zeroModel(): LLM {
  const words = REPLY.split(/(?<= )/);
  return {
    name: 'bench',
    chat() {
      return (async function* stream(): AsyncGenerator<ChatChunk> {
        const startedAt = Date.now();
        for (const text of words) yield { type: 'text', text };
        const at = Date.now();
        yield {
          type: 'done',
          finishReason: 'stop',
          usage: { promptTokens: 0, completionTokens: words.length },
          timings: { startedAt, firstTokenAt: startedAt, endedAt: at },
        };
      })();
    },
  };
}

// ---- Parley in this process ---------------------------------------------------------------------

interface Server {
  app: App;
  /** The media's send timing counters, read at the window's ends. */
  sendTiming(): RtpSendTiming;
  /** Closes the app once (the cleanup at the end calls it again). */
  close(): Promise<void>;
  sipPort: number;
  workspaceId: string;
}

/** Parley's per-source limit for the bench: twice sipp's rate (bursts of four times it). */
const sipRateLimit = (rate: number) => Math.max(10, 2 * rate);

async function startParley(rtpPortMin: number, rtpPortMax: number, rate: number): Promise<Server> {
  const port = await freePort();
  const sipPort = await freePort();
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    PARLEY_PUBLIC_URL: `http://127.0.0.1:${port}`,
    PARLEY_DATA_DIR: tempDir('sip-data'),
    PARLEY_BOOTSTRAP_API_KEY: BENCH_API_KEY,
    PARLEY_LOG_LEVEL: 'warn',
    PARLEY_SIM_MODE: 'text',
    PARLEY_NODE_NAME: 'bench',
    PARLEY_SIP: 'on',
    PARLEY_SIP_LISTEN_ADDRESS: '127.0.0.1',
    PARLEY_SIP_PORT: String(sipPort),
    PARLEY_SIP_TRANSPORTS: 'udp',
    PARLEY_RTP_PORT_MIN: String(rtpPortMin),
    PARLEY_RTP_PORT_MAX: String(rtpPortMax),
    // sipp places every call from one address: at the default (10 a second, bursts of 20) most of
    // its INVITEs would be dropped, come in late on retransmission, or never (docs/sip.md).
    PARLEY_SIP_RATE_LIMIT_PER_SECOND: String(sipRateLimit(rate)),
  });
  const app = await createApp(config, {
    logger: silentLogger(),
    announce: () => undefined,
    models: createModelRouter({ platform: zeroModel() }),
    speech: {
      choice: {
        speech: {
          vad: createFakeVAD(),
          stt: createFakeSTT({ latencyMs: 0 }),
          tts: createFakeTTS({ latencyMs: 0 }),
        },
      },
      farEnd: null,
      close: async () => undefined,
    },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
  };
  onCleanup(close);
  if (app.bootstrap.kind !== 'created') throw new Error('the bench workspace was not created');
  const workspaceId = app.bootstrap.workspaceId;
  // Slots must not be what limits the calls.
  await app.store.workspaces.update(workspaceId, { maxConcurrentCalls: 5000 });
  await app.listen();
  const media = app.sip?.media;
  if (!media) throw new Error('the app runs no SIP');
  return { app, close, sipPort, workspaceId, sendTiming: () => media.sendTiming() };
}

async function api(app: App, method: 'POST' | 'PUT', url: string, payload: object): Promise<unknown> {
  const res = await app.api.inject({
    method,
    url,
    headers: { authorization: `Bearer ${BENCH_API_KEY}` },
    payload,
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A fresh inbound agent with a SIP number of its own (trunk 127.0.0.1: sipp is admitted). */
async function agentWithNumber(app: App, number: string): Promise<string> {
  const created = (await api(app, 'POST', '/v2/assistants', {
    type: 'inbound',
    name: `sip bench ${number}`,
    agent: {
      prompt: PROMPT,
      greeting_message: GREETING,
      greeting_message_mode: 'agent_static',
      patience_level: PATIENCE,
    },
  })) as { response: { model_id: string } };
  const id = created.response.model_id;
  await api(app, 'POST', '/v2/custom-numbers', {
    phone_number: number,
    provider: 'sip',
    sip: { host: '127.0.0.1', port: 5060 },
  });
  await api(app, 'PUT', `/v2/assistants/${id}/phone_numbers`, { phone_numbers: [number] });
  return id;
}

// ---- the peers' process -------------------------------------------------------------------------

interface PeerProcess {
  send(message: ToPeer): void;
  next<T extends FromPeer['type']>(type: T, timeoutMs: number): Promise<Extract<FromPeer, { type: T }>>;
  stop(): Promise<void>;
}

async function startPeers(): Promise<PeerProcess> {
  const child: ChildProcess = fork('bin/tsx-run.js', ['bench/sip-peer.ts', '--sip-peer'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  };
  onCleanup(kill);
  const inbox: FromPeer[] = [];
  child.on('message', (message: FromPeer) => inbox.push(message));
  const next = async <T extends FromPeer['type']>(type: T, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) return inbox.splice(i, 1)[0] as Extract<FromPeer, { type: T }>;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the peers' process exited (${child.exitCode ?? child.signalCode}) before "${type}"`);
      if (Date.now() > deadline) throw new Error(`the peers' process sent no "${type}" in ${timeoutMs} ms`);
      await sleep(50);
    }
  };
  await next('ready', 30_000);
  return {
    send: (message) => child.send(message),
    next,
    async stop() {
      await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(5_000)]);
      await kill();
    },
  };
}

// ---- CPU per thread -----------------------------------------------------------------------------

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time (ms) of this process's main thread, and of all its threads, from /proc; null elsewhere. */
function threadCpu(): { main: number; all: number } | null {
  try {
    const read = (path: string) => {
      const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
      // utime and stime are fields 14 and 15 of stat; after "pid (comm) " they are 11 and 12 (0-based).
      return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    };
    return { main: read(`/proc/self/task/${process.pid}/stat`), all: read('/proc/self/stat') };
  } catch {
    return null;
  }
}

/** Busy and total CPU time of the whole machine (all CPUs) from /proc/stat; null elsewhere. */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = fields.reduce((sum, v) => sum + v, 0);
    return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
  } catch {
    return null;
  }
}

// ---- one step of N calls ------------------------------------------------------------------------

interface LinkTotals {
  calls: number;
  framesIn: number;
  framesLost: number;
  framesLate: number;
  framesRefused: number;
  framesOut: number;
}

interface StepRow {
  calls: number;
  up: number;
  sipp: { code: number | null; out: string };
  statuses: Record<string, number>;
  peer: PeerResult;
  /** Stamped by the media worker over the window: per packet as it left, per tick as it woke. */
  sent: { packets: LatenessCounts; ticks: LatenessCounts };
  link: LinkTotals;
  share: number[];
  noReply: number;
  cpuCorePct: number;
  mainCorePct: number;
  eluPct: number;
  heapPerCallMiB: number;
  rssPerCallMiB: number;
  eld: { p50: number; p99: number; max: number };
  machineBusyPct: number;
  loadAvg: number;
  windowS: number;
}

async function runStep(server: Server, calls: number, s: Settings, stepIndex: number): Promise<StepRow> {
  const { app } = server;
  const number = `+1415555${String(1000 + stepIndex).slice(-4)}`;
  const agentId = await agentWithNumber(app, number);
  collectGarbage();
  const before = process.memoryUsage();
  const peers = await startPeers();
  peers.send({ type: 'open', from: 40_000 + Math.floor(Math.random() * 5_000) * 2, count: calls });
  const { ports } = await peers.next('opened', 60_000);
  const rampMs = (calls / s.rate) * 1000;
  const holdMs = Math.ceil(rampMs + SETTLE_MS + s.stepS * 1000 + HOLD_AFTER_MS);
  const sipp = startSippCallers({
    dir: tempDir('sipp'),
    target: `127.0.0.1:${server.sipPort}`,
    number,
    port: await freePort(),
    mediaPort: await freePort(),
    rtpPorts: ports,
    rate: s.rate,
    holdMs,
  });
  await sleep(rampMs + SETTLE_MS);

  const eld = monitorEventLoopDelay({ resolution: 10 });
  eld.enable();
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const threads0 = threadCpu();
  const machine0 = machineCpu();
  const wall0 = performance.now();
  const windowStart = performance.timeOrigin + performance.now();
  const timing0 = server.sendTiming();
  peers.send({ type: 'window' });
  await sleep(s.stepS * 1000);
  peers.send({ type: 'window-end' });
  const timing1 = server.sendTiming();
  const windowEnd = performance.timeOrigin + performance.now();
  const wallMs = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  const threads1 = threadCpu();
  const machine1 = machineCpu();
  const elu = performance.eventLoopUtilization(elu0);
  eld.disable();
  collectGarbage();
  const during = process.memoryUsage();

  const sippDone = await sipp.done;
  peers.send({ type: 'stop' });
  const { result: peer } = await peers.next('result', 60_000);
  await peers.stop();
  await Promise.race([app.engine.calls.idle(), sleep(60_000)]);

  // Parley's side of each call: its final status and the link statistics of what it received.
  const { calls: records } = await app.store.calls.list(server.workspaceId, {
    agentId,
    limit: calls + 100,
    offset: 0,
  });
  const statuses: Record<string, number> = {};
  const link: LinkTotals = {
    calls: 0,
    framesIn: 0,
    framesLost: 0,
    framesLate: 0,
    framesRefused: 0,
    framesOut: 0,
  };
  for (const record of records) {
    statuses[record.status] = (statuses[record.status] ?? 0) + 1;
    const l = (record.quality as { link?: Record<string, number> } | null)?.link;
    if (!l) continue;
    link.calls += 1;
    link.framesIn += l.frames_in ?? 0;
    link.framesLost += l.frames_lost ?? 0;
    link.framesLate += l.frames_late ?? 0;
    link.framesRefused += l.frames_refused ?? 0;
    link.framesOut += l.frames_out ?? 0;
  }

  // Share: each caller line that ended in the window, to the next agent line's first packet.
  const share: number[] = [];
  let noReply = 0;
  for (const call of peer.calls) {
    for (const end of call.lineEnds) {
      if (end < windowStart || end > windowEnd - REPLY_MARGIN_MS) continue;
      const reply = call.lineStarts.find((at) => at > end);
      if (reply === undefined || reply - end > 5_000) noReply += 1;
      else share.push(reply - end - PATIENCE_MS[PATIENCE]);
    }
  }
  const cpuCorePct = ((cpu.user + cpu.system) / 1000 / wallMs) * 100;
  return {
    calls,
    up: peer.calls.filter((c) => c.received > 0).length,
    sipp: sippDone,
    statuses,
    peer,
    sent: {
      packets: timingSince(timing1.packets, timing0.packets),
      ticks: timingSince(timing1.ticks, timing0.ticks),
    },
    link,
    share,
    noReply,
    cpuCorePct,
    mainCorePct: threads0 && threads1 ? ((threads1.main - threads0.main) / wallMs) * 100 : NaN,
    eluPct: elu.utilization * 100,
    heapPerCallMiB:
      (during.heapUsed + during.arrayBuffers - before.heapUsed - before.arrayBuffers) / MiB / calls,
    rssPerCallMiB: (during.rss - before.rss) / MiB / calls,
    eld: { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 },
    machineBusyPct:
      machine0 && machine1
        ? (100 * (machine1.busy - machine0.busy)) / Math.max(1, machine1.total - machine0.total)
        : NaN,
    loadAvg: loadavg()[0]!,
    windowS: wallMs / 1000,
  };
}

// ---- the case -----------------------------------------------------------------------------------

export async function runSipCase(ctx: CaseContext): Promise<void> {
  const s = settings();
  const started = new Date();
  const loadStart = loadavg()[0]!;
  const biggest = Math.max(...s.steps);
  const rtpMin = 20_000 + Math.floor(Math.random() * 4_000) * 2;
  const server = await startParley(rtpMin, rtpMin + biggest * 4 + 200, s.rate);
  console.log(
    `sip: Parley's SIP on 127.0.0.1:${server.sipPort}, RTP ${rtpMin}-${rtpMin + biggest * 4 + 200}`,
  );
  const steps: StepRow[] = [];
  for (const [i, calls] of s.steps.entries()) {
    console.log(`sip: ${calls} calls (${s.stepS} s measured)...`);
    const row = await runStep(server, calls, s, i);
    steps.push(row);
    if (row.sipp.code !== 0) console.log(`sipp exited ${row.sipp.code}:\n${row.sipp.out.slice(-4000)}`);
    console.log(textTable(...mediaTable(steps.slice(-1))));
    console.log(textTable(...linkTable(steps.slice(-1))));
    await sleep(1000);
  }
  await server.close();
  console.log(textTable(...mediaTable(steps)));
  console.log(textTable(...linkTable(steps)));
  console.log(textTable(...resourceTable(steps)));
  const ws = wsMediaFigures();
  if (ws.length > 0) console.log(textTable(...compareTable(steps, ws)));
  writeResultsSection('sip', report({ ctx, s, started, loadStart, steps, ws }));
  console.log('wrote bench/RESULTS.md (section sip)');
}

// ---- tables and the report ----------------------------------------------------------------------

const p = (values: number[], q: number, digits = 1) => fmt(percentileOf(values, q), digits);
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const framesPerCall = (r: StepRow) => r.windowS * (1000 / FRAME_MS);
const statusCell = (r: StepRow) =>
  Object.entries(r.statuses)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
/** Send-side lateness: the media worker's own stamps (window), in ms. */
const sent = (r: StepRow, q: number) => latenessPercentile(r.sent.packets, q);
const woke = (r: StepRow, q: number) => latenessPercentile(r.sent.ticks, q);
const targetMet = (r: StepRow) =>
  sent(r, 99) <= JITTER_TARGET_MS && r.peer.lost === 0 && r.link.framesLost === 0 && r.up === r.calls;

function mediaTable(rows: StepRow[]): [string[], string[][]] {
  return [
    [
      'Calls',
      'Up (RTP seen) / sipp exit',
      'Final statuses',
      'Packets sent by Parley (window)',
      'Send lateness p50 / p99 / p99.9 / max ms',
      `Packets ≥ ${JITTER_TARGET_MS} ms late at the send`,
      "Media worker's tick wake-up p50 / p99 / max ms",
      'Arrival lateness at the peers p50 / p99 / p99.9 / max ms',
      'Lost: Parley → peers (seq gaps) / peers → Parley (its link)',
      `Target send p99 ≤ ${JITTER_TARGET_MS} ms, no loss, all up (≥ ${TARGET_CALLS} calls)`,
    ],
    rows.map((r) => [
      String(r.calls),
      `${r.up} / ${r.sipp.code}`,
      statusCell(r),
      String(r.sent.packets.count),
      `${fmt(sent(r, 50), 2)} / ${fmt(sent(r, 99), 2)} / ${fmt(sent(r, 99.9), 2)} / ${fmt(r.sent.packets.maxMs, 2)}`,
      `${latenessAbove(r.sent.packets, JITTER_TARGET_MS)} (${fmt(
        (100 * latenessAbove(r.sent.packets, JITTER_TARGET_MS)) / Math.max(1, r.sent.packets.count),
        3,
      )}%)`,
      `${fmt(woke(r, 50), 2)} / ${fmt(woke(r, 99), 2)} / ${fmt(r.sent.ticks.maxMs, 2)}`,
      `${fmt(r.peer.late.p50, 2)} / ${fmt(r.peer.late.p99, 2)} / ${fmt(r.peer.late.p999, 2)} / ${fmt(r.peer.late.max)}`,
      `${r.peer.lost} / ${r.link.framesLost}`,
      r.calls < TARGET_CALLS ? '—' : met(targetMet(r)),
    ]),
  ];
}

function linkTable(rows: StepRow[]): [string[], string[][]] {
  return [
    [
      'Calls',
      'Packets from Parley seen by the peers (window)',
      `Arrived ≥ ${JITTER_TARGET_MS} ms late`,
      'Reordered / dup at the peers',
      "Parley's link: frames in / lost / late / refused",
      'Gaps inside agent lines',
      'Share p50 / p95 / max ms (lines, no reply)',
    ],
    rows.map((r) => [
      String(r.calls),
      String(r.peer.packets),
      `${r.peer.late.over5} (${fmt((100 * r.peer.late.over5) / Math.max(1, r.peer.late.count), 3)}%)`,
      `${r.peer.reordered} / ${r.peer.duplicates}`,
      `${r.link.framesIn} / ${r.link.framesLost} / ${r.link.framesLate} / ${r.link.framesRefused}`,
      String(r.peer.gapsInLines),
      `${p(r.share, 50)} / ${p(r.share, 95)} / ${fmt(Math.max(...r.share))} (${r.share.length}, ${r.noReply})`,
    ]),
  ];
}

function resourceTable(rows: StepRow[]): [string[], string[][]] {
  return [
    [
      'Calls',
      'Parley CPU, all threads (% of one core)',
      'per call',
      'Main thread CPU %',
      'per call',
      'Main thread µs per call per 20 ms frame',
      'Main event loop busy (ELU) %',
      'Heap + buffers per call MiB',
      'RSS per call MiB',
      'Event-loop delay p50 / p99 / max ms',
      'Peers: CPU %, frames sent, tick late p99 / max ms',
      'Machine busy %',
      'Load avg',
    ],
    rows.map((r) => [
      String(r.calls),
      fmt(r.cpuCorePct, 0),
      fmt(r.cpuCorePct / r.calls, 3),
      fmt(r.mainCorePct, 0),
      fmt(r.mainCorePct / r.calls, 3),
      fmt(((r.mainCorePct / 100) * r.windowS * 1000 * 1000) / (r.calls * framesPerCall(r)), 1),
      fmt(r.eluPct, 0),
      fmt(r.heapPerCallMiB, 3),
      fmt(r.rssPerCallMiB, 3),
      `${fmt(r.eld.p50)} / ${fmt(r.eld.p99)} / ${fmt(r.eld.max)}`,
      `${fmt(r.peer.cpuPct, 0)}, ${r.peer.framesSent}, ${fmt(r.peer.tickLate.p99)} / ${fmt(r.peer.tickLate.max)}`,
      fmt(r.machineBusyPct, 0),
      fmt(r.loadAvg, 1),
    ]),
  ];
}

function compareTable(rows: StepRow[], ws: readonly WsMediaFigure[]): [string[], string[][]] {
  const counts = [...new Set([...rows.map((r) => r.calls), ...ws.map((w) => w.calls)])].sort((a, b) => a - b);
  const out: string[][] = [];
  for (const calls of counts) {
    for (const r of rows.filter((x) => x.calls === calls))
      out.push([
        String(calls),
        'SIP (RTP, media worker)',
        `${fmt(sent(r, 50), 2)} / ${fmt(sent(r, 99), 2)} / ${fmt(r.sent.packets.maxMs)} (at the send); ${fmt(
          r.peer.late.p50,
          2,
        )} / ${fmt(r.peer.late.p99, 2)} / ${fmt(r.peer.late.max)} (at the peers)`,
        `${r.peer.lost} / ${r.link.framesLost} packets`,
        fmt(r.cpuCorePct / r.calls, 3),
        fmt(r.rssPerCallMiB, 3),
        `${p(r.share, 50)} / ${p(r.share, 95)}`,
      ]);
    for (const w of ws.filter((x) => x.calls === calls))
      out.push([
        String(calls),
        `WS media (${w.sender} sender)`,
        `${fmt(w.sendP50, 2)} / ${fmt(w.sendP99, 2)} / ${fmt(w.sendMax)} (at the send)`,
        `${w.underruns} underruns`,
        fmt(w.cpuPerCallPct, 3),
        fmt(w.rssPerCallMiB, 3),
        `${fmt(w.shareP50)} / ${fmt(w.shareP95)}`,
      ]);
  }
  return [
    [
      'Calls',
      'Transport',
      'Frame lateness p50 / p99 / max ms',
      'Loss',
      'CPU per call (% of a core)',
      'RSS per call MiB',
      'Share p50 / p95 ms',
    ],
    out,
  ];
}

interface ReportInput {
  ctx: CaseContext;
  s: Settings;
  started: Date;
  loadStart: number;
  steps: StepRow[];
  ws: readonly WsMediaFigure[];
}

function report(r: ReportInput): string {
  const knobs = Object.keys(process.env)
    .filter((k) => k.startsWith('PARLEY_BENCH_SIP_') || k.startsWith('PARLEY_BENCH_WS_MEDIA_'))
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  const command = [...knobs, r.ctx.command].join(' ');
  const big = r.steps.filter((x) => x.calls >= TARGET_CALLS);
  const bigMet = big.filter(targetMet);
  const parts: string[] = [];
  parts.push(`## Case \`sip\`: concurrent SIP calls from sipp, audio both ways, one Parley process

- Date: ${r.started.toISOString()}
- Machine: ${machine()}
- Load: 1-minute load average ${fmt(r.loadStart)} at the start; ${r.steps.map((x) => fmt(x.loadAvg)).join(', ')} after
  each step. The machine is shared: other work may run.
- Command: \`${command}\`
- Parley (this process): the app as \`parley serve\` builds it (src/app.ts \`createApp\`, embedded SQLite in a
  temp dir) with SIP over UDP on 127.0.0.1 and the RTP media worker as shipped; fake VAD (a loudness
  gate), fake STT and TTS (data speech) and a model that answers every line at once (zero latency);
  patience \`${PATIENCE}\` (${PATIENCE_MS[PATIENCE]} ms). Per step a fresh inbound agent and SIP number (trunk 127.0.0.1).
  \`PARLEY_SIP_RATE_LIMIT_PER_SECOND=${sipRateLimit(r.s.rate)}\` (the documented per-source limit, default 10 a second
  with bursts of 20): sipp sends every INVITE from one address, and at the default most of them were
  dropped, came in late on retransmission or, when sipp ran out of retransmissions, never.
- Callers: one sipp process (bench/sip-sipp.ts) places the step's calls at ${r.s.rate} a second (\`-l N -m N -r ${r.s.rate}\`),
  signalling only; each INVITE's SDP (PCMU, telephone-event, ptime 20) names a UDP port of the RTP peers'
  process (bench/sip-peer.ts), which streams the caller's audio from that port (silence, or a caller line
  in data speech 500 ms after each agent line) and receives Parley's. ${SETTLE_MS / 1000} s after the last call started the
  window opens (${r.s.stepS} s); the calls stay up ${HOLD_AFTER_MS / 1000} s past it, then sipp sends BYE.
- Send lateness (the target's figure): stamped by Parley's media worker itself
  (src/telephony/rtp/send-timing.ts): per RTP packet, the moment its socket's send() returned (the
  datagram handed to the kernel: an IP address needs no lookup, so the send is done inside the call)
  minus its slot on the worker's 20 ms grid (the slot its RTP timestamp stands for); counted in 10 µs
  buckets in shared memory, read through \`RtpMedia.sendTiming()\` at both ends of the window. Every
  packet counts: audio, comfort silence, events. Tick wake-up: each 5 ms tick of the worker's beat
  (a call sends on one of the four), when it began against its time.
- Arrival lateness (secondary): every packet of Parley's is stamped as the peers' process reads it
  (timeOrigin + performance.now()); its due time is the call's anchor + RTP timestamp / 8 ms (Parley's
  timestamps follow its media worker's 20 ms grid), the anchor being the one that makes the call's
  least-late packet 0. So it is send lateness plus loopback plus the peers' own read delay (one Node
  event loop reading 200 calls' RTP), relative to the call's best packet.
- Loss: RTP sequence numbers from Parley that never reached the peers in the window; and the other way,
  Parley's own link statistics in each call's \`quality.link\` (the whole call).
- Share: from a caller line's end (its last frame due at the peer) to the reply's first packet at the peer,
  minus the patience wait. It holds the receive path (loopback, the media worker's jitter buffer of 3
  frames, the hand-over to the main thread on its 20 ms beat), endpointing, the turn, the fakes (0 ms)
  and the send path (the frame queued to the ring, then the media worker's next tick).
- CPU: process.cpuUsage() over the window (every thread: main, media worker, pacer, libuv, GC); the main
  thread alone from /proc/self/task/<pid>/stat (10 ms ticks). Main-thread µs per frame: its CPU over the
  window divided by calls × frames (one 20 ms frame each way per call). Memory: heap + array buffers and
  RSS after a full GC with the calls up, minus the same before the step, per call.`);

  parts.push(`### Concurrent calls

${markdownTable(...mediaTable(r.steps))}

${markdownTable(...linkTable(r.steps))}

${markdownTable(...resourceTable(r.steps))}

Target (frame-send lateness p99 ≤ ${JITTER_TARGET_MS} ms at the send, no RTP loss either way, every call up, at ≥ ${TARGET_CALLS} calls): ${
    big.length === 0
      ? 'no step of that size ran.'
      : bigMet.length === big.length
        ? `met at ${big.map((x) => x.calls).join(', ')} calls.`
        : `**not met** at ${big
            .filter((x) => !bigMet.includes(x))
            .map((x) => x.calls)
            .join(
              ', ',
            )} calls${bigMet.length > 0 ? `; met at ${bigMet.map((x) => x.calls).join(', ')}` : ''}.`
  }`);

  const missing = r.steps.filter((x) => x.up < x.calls || x.sipp.code !== 0);
  if (missing.length > 0)
    parts.push(
      `**Calls that did not run as written**: ${missing
        .map((x) => `${x.calls - x.up} of ${x.calls} never came up, sipp exit ${x.sipp.code}`)
        .join('; ')} (sipp's error log is printed by the run).`,
    );

  const starved = r.steps.filter((x) => x.peer.tickLate.p99 > JITTER_TARGET_MS);
  if (starved.length > 0)
    parts.push(`**Caution**: the peers' own send ticks were late (p99 ${starved
      .map((x) => `${fmt(x.peer.tickLate.p99)} ms at ${x.calls} calls`)
      .join(', ')}): the machine did not run the far ends on time, so the arrival lateness, Parley's
received-frame loss (its jitter buffer drops what a starved peer sends in a burst) and the share
above measure the peers as much as Parley. Only a run on an otherwise idle machine tests the target.`);

  parts.push(`### Beside WS media

${
  r.ws.length === 0
    ? 'The `ws-media` case did not run earlier in this run (`npm run bench -- ws-media sip` runs both, WS first).'
    : `The \`ws-media\` case's load steps of this same run, before this case (both lateness figures
stamped where Parley sends: the pacer worker's and the media worker's own stamps against their 20 ms
grids; SIP's also where the peers read it). Loss: SIP's RTP packets lost each way; WS media's
underruns (a beat that sent nothing inside an agent line). The shares are not the same span: WS
media's runs from the client's end of speech to the reply's first frame handed to the socket (a TCP
stream, no jitter buffer); SIP's from the line's end at the peer to the reply's first packet read
there, through Parley's jitter buffer of ${JITTER_FRAMES} frames (${JITTER_FRAMES * FRAME_MS} ms) on the way in.

${markdownTable(...compareTable(r.steps, r.ws))}`
}`);

  parts.push(`### What the main thread still does per RTP frame

The media worker (src/telephony/rtp/media-worker.ts) owns every call's UDP socket, the jitter buffer,
the G.711/Opus codecs, the RFC 3550 statistics and the DTMF receivers, and stamps and sends our
packets on its own 20 ms grid. Per frame, the main thread only (docs/sip.md, "A media worker owns the
sockets"): on its 20 ms beat, copies each call's new received frame out of shared memory into an
\`Int16Array\` and hands it to the voice session (which runs the VAD, the STT stream and the turn logic on
it, as on every transport), reads the event ring (keys, timeout), and lets the call's \`FrameRing\` take
the agent's frames waiting beyond its second; \`play()\` copies each synthesized frame into shared memory.
No codec, socket, timer or message per frame. The table's "main thread µs per call per 20 ms frame" is
ALL of the main thread's CPU over the window (SIP signalling, the sessions, the store, GC included)
divided by the frames, so it bounds the per-frame cost from above.`);
  return parts.join('\n\n');
}
