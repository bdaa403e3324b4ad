// Case `console`: the web console's first load and its list pages on a big store (issue 24).
//
// (a) Bundle: the console built as `npm ci` builds it (console/build.mjs buildConsole), the
//     script and stylesheets its index.html loads (parsed from the page), their brotli and gzip
//     sizes as stored beside them, summed against the 250 KB target; the same files fetched from
//     the server with `accept-encoding: br` (and gzip) to check what goes on the wire.
// (b) A seeded store per dialect: PARLEY_BENCH_CONSOLE_CALLS calls (100,000) and a campaign of
//     PARLEY_BENCH_CONSOLE_RECIPIENTS recipients (1,000,000), written through the store's
//     repositories in this process (no HTTP): agents, the batch (batches.create / append), and
//     the calls in chunks as the dialer and the calls module write them (calls.createAdmitted,
//     batches.dispatchMany for the campaign's calls, then calls.updateMany to their final status
//     and batches.callEnded), over 90 days, several agents (skewed), types and statuses, with
//     transcripts; a clock of the seed's own stamps created_at.
// (c) The app (src/app.ts createApp, role `api`) on that store, listening in this process; every
//     list request the console makes (first page, last page, each filter alone) timed over real
//     HTTP (node:http, one keep-alive connection, sequential, time to the whole body): p50/p95.
//     Baselines in the same run: the same request on an app over an empty store of the same
//     dialect (the difference is what the data costs), and GET /healthz (the HTTP floor).
// SQLite (temp dir) always; PostgreSQL too when a server answers on 127.0.0.1:5432 (a fresh
// database per store, dropped afterwards), as the campaign case does.
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildConsole } from '../console/build.mjs';
import { createApp, type App } from '../src/app.ts';
import { loadConfig, newId, silentLogger, systemClock, type Clock } from '../src/core/index.ts';
import {
  bootstrapWorkspace,
  createStore,
  type CallMove,
  type CallPatch,
  type NewCall,
  type NewTask,
  type Store,
} from '../src/store/index.ts';
import type { CaseContext } from './api.ts';
import {
  BENCH_API_KEY,
  intEnv,
  machine,
  markdownTable,
  onCleanup,
  partsEnv,
  ROOT,
  tempDir,
  textTable,
  writeResultsSection,
} from './lib.ts';

const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const TARGET_BUNDLE_KB = 250;
const TARGET_MS = 200;
/** The console's page size (console/src/pages: LIMIT). */
const PAGE = 50;
const DAY_MS = 86_400_000;
const SPAN_DAYS = 90;
const AGENTS = 40;
const SMALL_BATCHES = 9;
const SMALL_BATCH_SIZE = 200;
const CALL_CHUNK = 1000;
const TASK_CHUNK = 20_000;
const WARMUP = 3;
/** A request slower than this on its first warm-up is timed fewer times (SLOW_SAMPLES). */
const SLOW_MS = 1000;
const SLOW_SAMPLES = 5;
const STORES = ['sqlite', 'postgres'] as const;
type Dialect = (typeof STORES)[number];

const callCount = () => intEnv('PARLEY_BENCH_CONSOLE_CALLS', 100_000, 1000, 1_000_000);
const recipientCount = () => intEnv('PARLEY_BENCH_CONSOLE_RECIPIENTS', 1_000_000, 1000, 1_000_000);
const sampleCount = () => intEnv('PARLEY_BENCH_CONSOLE_SAMPLES', 15, 3, 1000);

/** A generous bound for the watchdog: per store, the seed and ~40 requests x samples, twice. */
export const consolePhaseSeconds = (): number =>
  60 + 2 * (recipientCount() / 10_000 + callCount() / 1_000 + 2 * 40 * (sampleCount() + WARMUP) * 0.3);

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const int = (n: number) => n.toLocaleString('en-US');

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A small deterministic generator (mulberry32), so every run seeds the same store. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// ---- (a) bundle ----------------------------------------------------------------------------------

interface Asset {
  name: string;
  kind: 'js' | 'css';
  raw: number;
  gzip: number;
  brotli: number;
  /** Bytes on the wire from the server with accept-encoding br / gzip (body only). */
  servedBr?: number;
  servedGzip?: number;
}

/** Builds the console and reads the sizes of what its page loads. */
async function bundleSizes(): Promise<{ assets: Asset[]; html: string }> {
  await buildConsole();
  const dist = join(ROOT, 'console', 'dist');
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const refs: { url: string; kind: 'js' | 'css' }[] = [];
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) refs.push({ url: m[1]!, kind: 'js' });
  for (const m of html.matchAll(/<link\b[^>]*>/g)) {
    const tag = m[0];
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (!href) continue;
    if (/\brel="stylesheet"/.test(tag)) refs.push({ url: href, kind: 'css' });
    else if (/\brel="modulepreload"/.test(tag)) refs.push({ url: href, kind: 'js' });
  }
  if (!refs.some((r) => r.kind === 'js')) throw new Error('console/dist/index.html loads no script');
  const assets = refs.map(({ url, kind }) => {
    if (!url.startsWith('/assets/')) throw new Error(`the console loads ${url}, outside /assets/`);
    const file = join(dist, 'assets', url.slice('/assets/'.length));
    const size = (f: string) => statSync(f).size;
    return { name: url, kind, raw: size(file), gzip: size(`${file}.gz`), brotli: size(`${file}.br`) };
  });
  return { assets, html };
}

/** GET `path` without decompressing: the status, content-encoding and body bytes. */
function rawGet(
  base: string,
  path: string,
  encoding: string,
): Promise<{ status: number; encoding: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers: { 'accept-encoding': encoding } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          encoding: String(res.headers['content-encoding'] ?? 'identity'),
          bytes,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function checkServed(base: string, assets: Asset[]): Promise<void> {
  for (const asset of assets) {
    for (const [encoding, key] of [
      ['br', 'servedBr'],
      ['gzip', 'servedGzip'],
    ] as const) {
      const r = await rawGet(base, asset.name, encoding);
      if (r.status !== 200) throw new Error(`GET ${asset.name}: HTTP ${r.status}`);
      if (r.encoding !== encoding)
        throw new Error(`GET ${asset.name} with accept-encoding ${encoding}: sent as ${r.encoding}`);
      asset[key] = r.bytes;
    }
  }
}

// ---- stores --------------------------------------------------------------------------------------

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh PostgreSQL database for this run, dropped at cleanup; its URL. */
async function freshPgDatabase(label: string): Promise<string> {
  const name = `parley_bench_console_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL });
    await c.connect();
    try {
      await c.query(`drop database if exists ${name} with (force)`);
    } finally {
      await c.end();
    }
  });
  return `postgres://postgres@127.0.0.1:5432/${name}`;
}

interface Place {
  dialect: Dialect;
  dataDir: string;
  /** PostgreSQL only. */
  url: string;
}

async function freshPlace(dialect: Dialect, label: string): Promise<Place> {
  return {
    dialect,
    dataDir: tempDir(`console-${label}-${dialect}`),
    url: dialect === 'postgres' ? await freshPgDatabase(label) : '',
  };
}

/** A store on `place` with `clock`, migrated, with the bench key's workspace; its id. */
async function openSeedStore(place: Place, clock: Clock): Promise<{ store: Store; workspaceId: string }> {
  const store =
    place.dialect === 'sqlite'
      ? await createStore({ dialect: 'sqlite', file: join(place.dataDir, 'parley.db') }, clock)
      : await createStore({ dialect: 'postgres', url: place.url }, clock);
  await store.migrate();
  const boot = await bootstrapWorkspace(store, BENCH_API_KEY);
  if (boot.kind !== 'created') throw new Error('the fresh store already had the bench key');
  return { store, workspaceId: boot.workspaceId };
}

async function startApp(place: Place): Promise<{ app: App; url: string }> {
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    PARLEY_DATA_DIR: place.dataDir,
    PARLEY_DATABASE_URL: place.url,
    PARLEY_BOOTSTRAP_API_KEY: BENCH_API_KEY,
    PARLEY_LOG_LEVEL: 'warn',
    PARLEY_NODE_NAME: 'bench-console',
  });
  const app = await createApp(config, { logger: silentLogger(), announce: () => undefined, role: 'api' });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
  };
  onCleanup(close);
  return { app, url: await app.listen() };
}

// ---- (b) the seed --------------------------------------------------------------------------------

/** The ids the console's requests name. */
interface Ids {
  bigAgent: string;
  smallAgent: string;
  batch: string;
  leadPhone: string;
}

interface Seeded {
  ids: Ids;
  seedMs: { agentsAndBatches: number; recipients: number; calls: number; failed: number; vacuum: number };
  calls: number;
  recipients: number;
  campaignCalls: number;
  failedTasks: number;
}

const FIRST = [
  'Ana',
  'Ben',
  'Chloé',
  'David',
  'Emma',
  'Farid',
  'Grace',
  'Hugo',
  'Ines',
  'Jon',
  'Kemal',
  'Lea',
];
const LAST = ['Smith', 'García', 'Nguyen', 'Müller', 'Rossi', 'Kowalski', 'Dubois', 'Okafor', 'Tanaka'];
const PLANS = ['basic', 'plus', 'premium', 'family'];
const BOT_LINES = [
  'Hi, this is Maya from Northwind Dental calling about your upcoming appointment.',
  'Could you please confirm your full name and date of birth for me?',
  'Thank you. I have openings on Tuesday at 10 am, Wednesday at 2 pm and Friday at 9 am.',
  'Perfect, I have booked you for that slot. You will get a text message confirmation shortly.',
  'Is there anything else I can help you with today?',
  'No problem at all, a team member will call you back within one business day.',
];
const HUMAN_LINES = [
  'Hello? Yes, speaking.',
  'Sure, it is on my card somewhere, give me a second.',
  'Wednesday afternoon works best for me, if that is still open.',
  'Actually, can you tell me whether my insurance covers the cleaning?',
  'No, that is everything, thanks.',
  'I am driving right now, could you call me back later?',
];

/** Final statuses with their weights (shares of the calls), as a campaign-heavy workspace sees them. */
const STATUS_WEIGHTS: [string, number][] = [
  ['completed', 58],
  ['no-answer', 15],
  ['busy', 7],
  ['failed', 4],
  ['left_voicemail', 6],
  ['hangup_on_voicemail', 5],
  ['canceled', 3],
  ['user-canceled', 1.5],
  ['spam', 0.5],
];
const RARE_STATUS = 'spam';

function pickWeighted<T>(items: [T, number][], r: number): T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let x = r * total;
  for (const [item, w] of items) {
    x -= w;
    if (x < 0) return item;
  }
  return items.at(-1)![0];
}

function transcriptOf(rnd: () => number, turns: number): string {
  const lines: string[] = [];
  for (let t = 0; t < turns; t++) {
    const pool = t % 2 === 0 ? BOT_LINES : HUMAN_LINES;
    lines.push(`${t % 2 === 0 ? 'bot' : 'human'}: ${pool[Math.floor(rnd() * pool.length)]}`);
  }
  return lines.join('\n');
}

/** Lead `k` of the shared pool (calls to the same person recur): a valid US number. */
const leadPhone = (k: number) => `+1646${String(2_000_000 + k).padStart(7, '0')}`;
const LEAD_POOL = 40_000;

/** The final move of a call that rang at `ringAt` (null: never rang), by status. */
function finalPatch(status: string, ringAt: number | null, rnd: () => number): CallPatch {
  const rings = 5_000 + Math.floor(rnd() * 20_000);
  const at = ringAt ?? 0;
  switch (status) {
    case 'completed': {
      const duration = 20 + Math.floor(rnd() * 400);
      const answered = at + rings;
      return {
        status,
        endCallReason: rnd() < 0.6 ? 'human_goodbye' : 'agent_goodbye',
        answeredAt: answered,
        endedAt: answered + duration * 1000,
        durationSeconds: duration,
        transcript: transcriptOf(rnd, 4 + Math.floor(rnd() * 10)),
        analysis: {
          summary: 'The caller confirmed their details and booked the Wednesday 2 pm slot.',
          sentiment: rnd() < 0.7 ? 'positive' : 'neutral',
          appointment_booked: rnd() < 0.5,
        },
      };
    }
    case 'left_voicemail':
    case 'spam':
    case 'user-canceled': {
      const duration = 5 + Math.floor(rnd() * 40);
      const answered = at + rings;
      return {
        status,
        endCallReason:
          status === 'left_voicemail'
            ? 'voicemail_message_left'
            : status === 'user-canceled'
              ? 'user_canceled'
              : 'undefined',
        answeredAt: answered,
        endedAt: answered + duration * 1000,
        durationSeconds: duration,
        transcript: transcriptOf(rnd, 1 + Math.floor(rnd() * 3)),
      };
    }
    case 'hangup_on_voicemail':
      return { status, endCallReason: 'voicemail', endedAt: at + rings, durationSeconds: 0 };
    case 'failed':
      return {
        status,
        endCallReason: 'undefined',
        errorMessage: 'the carrier refused the call (503)',
        endedAt: at + 1_000,
        durationSeconds: 0,
      };
    case 'canceled':
      return { status, endCallReason: 'undefined', endedAt: at, durationSeconds: 0 };
    default: // no-answer, busy
      return { status, endCallReason: 'undefined', endedAt: at + rings, durationSeconds: 0 };
  }
}

async function seed(place: Place, calls: number, recipients: number, log: (s: string) => void) {
  const now = Date.now();
  const start = now - SPAN_DAYS * DAY_MS;
  let stamp = start - DAY_MS;
  const clock: Clock = { now: () => stamp, sleep: (ms, signal) => systemClock.sleep(ms, signal) };
  const rnd = random(24);
  const { store, workspaceId: ws } = await openSeedStore(place, clock);
  const seedMs = { agentsAndBatches: 0, recipients: 0, calls: 0, failed: 0, vacuum: 0 };
  try {
    // Agents (weights 1/(k+1): a few busy agents, many quiet ones) and their numbers.
    let t0 = performance.now();
    const agents = await store.transaction(async (repos) => {
      const made: { id: string; number: string }[] = [];
      for (let k = 0; k < AGENTS; k++) {
        const agent = await repos.agents.create(ws, {
          type: k % 5 === 4 ? 'inbound' : 'outbound',
          name: `Agent ${String(k).padStart(2, '0')} (${['Dental', 'Insurance', 'Solar', 'Clinic'][k % 4]})`,
          spec: {
            agent: {
              prompt: `You are Maya, a friendly scheduling assistant #${k}. ${BOT_LINES.join(' ')}`,
              greeting_message: BOT_LINES[0]!,
              voice_id: `voice-${(k % 8) + 1}`,
              llm: 'gpt-4o-mini',
            },
            max_duration: { duration_seconds: 600, is_enabled: true },
          },
        });
        made.push({ id: agent.id, number: `+1415555${String(1000 + k).padStart(4, '0')}` });
      }
      return made;
    });
    const agentWeights: [number, number][] = agents.map((_, k) => [k, 1 / (k + 1)]);
    const campaignAgent = agents[1]!;
    for (let b = 0; b < SMALL_BATCHES; b++) {
      stamp = start + b * DAY_MS;
      const tasks: NewTask[] = Array.from({ length: SMALL_BATCH_SIZE }, (_, i) => ({
        toPhoneNumber: leadPhone((b * SMALL_BATCH_SIZE + i) % LEAD_POOL),
        leadName: `${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]}`,
      }));
      await store.batches.create(
        ws,
        {
          agentId: agents[b % AGENTS]!.id,
          name: `Reminder list ${b + 1}`,
          fromPhoneNumber: agents[b % AGENTS]!.number,
          fromProvider: 'sim',
          triggerAt: null,
          reservedConcurrency: 0,
          callTimeWindow: null,
          lifetimeMs: 365 * DAY_MS,
        },
        tasks,
      );
    }
    seedMs.agentsAndBatches = performance.now() - t0;

    // The campaign: `recipients` recipients, added in chunks as the API's appends add them.
    t0 = performance.now();
    stamp = start + SMALL_BATCHES * DAY_MS;
    const recipient = (n: number): NewTask => ({
      clientId: `crm-${n}`,
      toPhoneNumber: `+1${String(2_000_000_000 + n).slice(0, 10)}`,
      leadName: `${FIRST[n % FIRST.length]} ${LAST[n % LAST.length]}`,
      leadEmail: `lead${n}@example.com`,
      customVariables: { plan: PLANS[n % PLANS.length]!, first_name: FIRST[n % FIRST.length]! },
    });
    let batchId = '';
    for (let from = 0; from < recipients; from += TASK_CHUNK) {
      const tasks = Array.from({ length: Math.min(TASK_CHUNK, recipients - from) }, (_, i) =>
        recipient(from + i),
      );
      if (from === 0) {
        const batch = await store.batches.create(
          ws,
          {
            agentId: campaignAgent.id,
            name: 'Spring check-up campaign',
            fromPhoneNumber: campaignAgent.number,
            fromProvider: 'sim',
            triggerAt: stamp,
            reservedConcurrency: 0,
            callTimeWindow: null,
            lifetimeMs: 365 * DAY_MS,
          },
          tasks,
        );
        batchId = batch.id;
      } else {
        const r = await store.batches.append(ws, batchId, tasks);
        if (!r.ok) throw new Error(`append at ${from}: ${r.reason}`);
      }
    }
    seedMs.recipients = performance.now() - t0;
    log(`${place.dialect}: ${int(recipients)} recipients in ${fmt(seedMs.recipients / 1000, 1)} s`);

    // The calls, oldest first over SPAN_DAYS: every 5th from the campaign (after its start) as
    // the dialer writes them (claim, create, dispatch in one transaction), the others placed on
    // their own; then each moved to its final status as the calls module does at hang-up.
    t0 = performance.now();
    const maxCampaignCalls = Math.floor(recipients / 2);
    const spacing = (SPAN_DAYS * DAY_MS - 3_600_000) / calls;
    const campaignFrom = Math.ceil(((SMALL_BATCHES + 1) * DAY_MS) / spacing);
    let campaignCalls = 0;
    let middleLead = '';
    for (let c0 = 0; c0 < calls; c0 += CALL_CHUNK) {
      const n = Math.min(CALL_CHUNK, calls - c0);
      const times = Array.from({ length: n }, (_, j) => Math.round(start + (c0 + j + rnd()) * spacing));
      const fromCampaign: boolean[] = [];
      let wanted = 0;
      for (let j = 0; j < n; j++) {
        const yes = (c0 + j) % 5 === 4 && c0 + j >= campaignFrom && campaignCalls + wanted < maxCampaignCalls;
        fromCampaign.push(yes);
        if (yes) wanted++;
      }
      stamp = times[0]!;
      const claimed = wanted > 0 ? await store.batches.claim(batchId, wanted, 'bench-console') : [];
      if (claimed.length !== wanted) throw new Error(`claimed ${claimed.length} of ${wanted} recipients`);
      let next = 0;
      const inputs: NewCall[] = [];
      const patches: CallPatch[] = [];
      for (let j = 0; j < n; j++) {
        const status = pickWeighted(STATUS_WEIGHTS, rnd());
        const ringAt = status === 'canceled' ? null : times[j]!;
        patches.push(finalPatch(status, ringAt, rnd));
        if (fromCampaign[j]) {
          const task = claimed[next++]!;
          inputs.push({
            id: newId(),
            agentId: campaignAgent.id,
            type: 'outbound',
            status: 'pending',
            phoneFrom: campaignAgent.number,
            phoneTo: task.toPhoneNumber,
            leadName: task.leadName ?? '',
            leadEmail: task.leadEmail,
            variables: Object.fromEntries(
              Object.entries(task.customVariables ?? {}).map(([k, v]) => [k, String(v)]),
            ),
            batchCallId: batchId,
            batchTaskId: task.id,
            ringingAt: ringAt,
          });
          continue;
        }
        const agent = agents[pickWeighted(agentWeights, rnd())]!;
        const r = rnd();
        const type = r < 0.7 ? 'outbound' : r < 0.9 ? 'inbound' : 'web';
        const lead = leadPhone(Math.floor(rnd() * LEAD_POOL));
        if (c0 + j === Math.floor(calls / 2)) middleLead = lead;
        const k = Math.floor(rnd() * 1000);
        inputs.push({
          id: newId(),
          agentId: agent.id,
          type,
          status: 'pending',
          phoneFrom: type === 'inbound' ? lead : agent.number,
          phoneTo: type === 'inbound' ? agent.number : lead,
          leadName: `${FIRST[k % FIRST.length]} ${LAST[k % LAST.length]}`,
          leadEmail: k % 3 === 0 ? null : `lead${k}@example.com`,
          variables: { first_name: FIRST[k % FIRST.length]!, plan: PLANS[k % PLANS.length]! },
          metadata: { crm_id: `crm-${k}`, source: type === 'web' ? 'widget' : 'api' },
          ringingAt: ringAt,
        });
      }
      campaignCalls += wanted;
      const moves: CallMove[] = inputs.map((c, j) => ({
        workspaceId: ws,
        id: c.id!,
        from: ['pending'],
        patch: patches[j]!,
      }));
      const items = inputs.flatMap((c) => (c.batchTaskId ? [{ taskId: c.batchTaskId, callId: c.id! }] : []));
      const ended = await store.transaction(async (repos) => {
        // Cap 0: every call is written waiting, none admitted (no call runs here).
        await repos.calls.createAdmitted(ws, inputs, 0, 'bench-console');
        if (items.length > 0) await repos.batches.dispatchMany(batchId, items);
        stamp = times.at(-1)!;
        const moved = await repos.calls.updateMany(moves);
        if (items.length > 0) await repos.batches.callEnded(batchId, items.length);
        return moved.filter((m) => m !== null).length;
      });
      if (ended !== n) throw new Error(`${ended} of ${n} calls moved to their final status`);
      if ((c0 / CALL_CHUNK) % 20 === 19) log(`${place.dialect}: ${int(c0 + n)} calls`);
    }
    seedMs.calls = performance.now() - t0;
    log(`${place.dialect}: ${int(calls)} calls in ${fmt(seedMs.calls / 1000, 1)} s`);

    // Recipients the dialer could not call (failed before dialing), after the dialed ones.
    t0 = performance.now();
    const failedTasks = Math.min(2000, Math.floor((recipients - campaignCalls) / 10));
    stamp = now - DAY_MS;
    for (const task of await store.batches.claim(batchId, failedTasks, 'bench-console'))
      await store.batches.fail(task.id, 'not a dialable number');
    seedMs.failed = performance.now() - t0;

    // Find the agent with the most and the fewest calls (the weights decide, the campaign adds).
    const perAgent = await Promise.all(
      agents.map(async (a) => (await store.calls.list(ws, { agentId: a.id, limit: 1, offset: 0 })).total),
    );
    const big = perAgent.indexOf(Math.max(...perAgent));
    const small = perAgent.indexOf(Math.min(...perAgent));
    if (!middleLead) middleLead = leadPhone(0);
    await store.close().catch(() => undefined);

    // PostgreSQL's autovacuum would have analyzed and vacuumed tables this fresh by the time
    // anyone lists them; done here at once, so the plans are those of a settled database.
    if (place.dialect === 'postgres') {
      t0 = performance.now();
      const client = new pg.Client({ connectionString: place.url });
      await client.connect();
      try {
        await client.query('vacuum (analyze)');
      } finally {
        await client.end();
      }
      seedMs.vacuum = performance.now() - t0;
    }
    return {
      ids: {
        bigAgent: agents[big]!.id,
        smallAgent: agents[small]!.id,
        batch: batchId,
        leadPhone: middleLead,
      },
      seedMs,
      calls,
      recipients,
      campaignCalls,
      failedTasks,
    } satisfies Seeded;
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

/** The empty store's baseline: the same agents' roles and a batch, no calls, no recipients. */
async function seedEmpty(place: Place): Promise<Ids> {
  const { store, workspaceId: ws } = await openSeedStore(place, systemClock);
  try {
    const made = await store.transaction(async (repos) =>
      Promise.all(
        ['Big', 'Small'].map((name) =>
          repos.agents.create(ws, { type: 'outbound', name, spec: { agent: { prompt: 'p' } } }),
        ),
      ),
    );
    const batch = await store.batches.create(
      ws,
      {
        agentId: made[0]!.id,
        name: 'Empty',
        fromPhoneNumber: '+14155551000',
        fromProvider: 'sim',
        triggerAt: null,
        reservedConcurrency: 0,
        callTimeWindow: null,
        lifetimeMs: 365 * DAY_MS,
      },
      [],
    );
    return { bigAgent: made[0]!.id, smallAgent: made[1]!.id, batch: batch.id, leadPhone: leadPhone(0) };
  } finally {
    await store.close();
  }
}

// ---- (c) timing ----------------------------------------------------------------------------------

/** Local midnight `days` ago (the console sends its date fields' local days), or its last ms. */
function localDay(days: number, endOf: boolean): number {
  const d = new Date();
  return endOf
    ? new Date(d.getFullYear(), d.getMonth(), d.getDate() - days + 1).getTime() - 1
    : new Date(d.getFullYear(), d.getMonth(), d.getDate() - days).getTime();
}

interface Probe {
  page: string;
  request: string;
  /** The path without the offset (the console's query order), from the store's ids. */
  path(ids: Ids): string;
  /** Paged: the first page and the last (the deepest offset the console's pager reaches). */
  paged: boolean;
}

function probes(): Probe[] {
  const from7 = localDay(7, false);
  const to60 = localDay(60, true);
  const dayFrom = localDay(30, false);
  const dayTo = localDay(30, true);
  const calls = (q: string) => `/v2/calls?limit=${PAGE}${q}`;
  const tasks = (ids: Ids, q: string) => `/v2/calls/batch/${ids.batch}/tasks?limit=${PAGE}${q}`;
  return [
    { page: 'floor', request: 'GET /healthz', path: () => '/healthz', paged: false },
    { page: 'Calls', request: 'all', path: () => calls(''), paged: true },
    {
      page: 'Calls',
      request: 'model_id (busiest agent)',
      path: (ids) => calls(`&model_id=${ids.bigAgent}`),
      paged: true,
    },
    {
      page: 'Calls',
      request: 'model_id (quietest agent)',
      path: (ids) => calls(`&model_id=${ids.smallAgent}`),
      paged: true,
    },
    {
      page: 'Calls',
      request: 'call_status=completed',
      path: () => calls('&call_status=completed'),
      paged: true,
    },
    {
      page: 'Calls',
      request: `call_status=${RARE_STATUS} (rare)`,
      path: () => calls(`&call_status=${RARE_STATUS}`),
      paged: true,
    },
    {
      page: 'Calls',
      request: 'from_date (last 7 days)',
      path: () => calls(`&from_date=${from7}`),
      paged: true,
    },
    { page: 'Calls', request: 'to_date (60 days ago)', path: () => calls(`&to_date=${to60}`), paged: true },
    {
      page: 'Calls',
      request: 'from_date + to_date (one day)',
      path: () => calls(`&from_date=${dayFrom}&to_date=${dayTo}`),
      paged: true,
    },
    {
      page: 'Calls',
      request: 'lead_phone_number',
      path: (ids) => calls(`&lead_phone_number=${encodeURIComponent(ids.leadPhone)}`),
      paged: true,
    },
    {
      page: 'Calls',
      request: 'batch_call_id (the campaign)',
      path: (ids) => calls(`&batch_call_id=${ids.batch}`),
      paged: true,
    },
    { page: 'Campaign', request: 'recipients, all', path: (ids) => tasks(ids, ''), paged: true },
    ...(['queued', 'dispatched', 'failed', 'canceled'] as const).map((status) => ({
      page: 'Campaign',
      request: `recipients, status=${status}`,
      path: (ids: Ids) => tasks(ids, `&status=${status}`),
      paged: true,
    })),
    {
      page: 'Campaign',
      request: 'the campaign (counters)',
      path: (ids) => `/v2/calls/batch/${ids.batch}`,
      paged: false,
    },
    {
      page: 'Campaigns',
      request: 'list',
      path: () => `/v2/calls/batch?limit=${PAGE}&offset=0`,
      paged: false,
    },
    { page: 'Agents', request: 'list', path: () => `/v2/assistants/?limit=${PAGE}&offset=0`, paged: false },
    {
      page: 'Calls',
      request: "agents for the filter (limit 1000, the SDK's allAgents)",
      path: () => '/v2/assistants/?limit=1000&offset=0',
      paged: false,
    },
  ];
}

const withOffset = (path: string, offset: number) => `${path}&offset=${offset}`;

/** Sequential GETs over one keep-alive connection, timed to the whole body. */
function client(base: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  onCleanup(() => agent.destroy());
  const get = (path: string) =>
    new Promise<{ ms: number; text: string }>((resolve, reject) => {
      const t0 = performance.now();
      const req = http.get(
        `${base}${path}`,
        { agent, headers: { authorization: `Bearer ${BENCH_API_KEY}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const ms = performance.now() - t0;
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200)
              reject(new Error(`GET ${path}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
            else resolve({ ms, text });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
    });
  return { get, close: () => agent.destroy() };
}

interface Timing {
  /** Sorted. */
  ms: number[];
  items: number | null;
  total: number | null;
}

/** Items listed and the filter's total, from a list answer. */
function countsOf(text: string): { items: number | null; total: number | null } {
  const body = JSON.parse(text) as { response?: Record<string, unknown> } & Record<string, unknown>;
  const r = body.response;
  if (!r || typeof r !== 'object') return { items: null, total: null };
  const list = ['calls', 'tasks', 'batch_calls', 'assistants'].map((k) => r[k]).find(Array.isArray);
  const pagination = r.pagination as { total_records?: number } | undefined;
  return { items: list ? list.length : null, total: pagination?.total_records ?? null };
}

type Get = (path: string) => Promise<{ ms: number; text: string }>;

/**
 * The request on the seeded store and on the empty one, warmed up, then timed in turns (seeded,
 * empty, seeded...), so that other work on the machine falls on both alike.
 */
async function timePair(
  seeded: { get: Get; path: string },
  empty: { get: Get; path: string },
  samples: number,
): Promise<{ seeded: Timing; empty: Timing }> {
  const first = await seeded.get(seeded.path);
  const firstEmpty = await empty.get(empty.path);
  for (let i = 1; i < WARMUP; i++) {
    await seeded.get(seeded.path);
    await empty.get(empty.path);
  }
  const n = first.ms > SLOW_MS ? Math.min(samples, SLOW_SAMPLES) : samples;
  const s: number[] = [];
  const e: number[] = [];
  for (let i = 0; i < n; i++) {
    s.push((await seeded.get(seeded.path)).ms);
    e.push((await empty.get(empty.path)).ms);
  }
  s.sort((a, b) => a - b);
  e.sort((a, b) => a - b);
  return { seeded: { ms: s, ...countsOf(first.text) }, empty: { ms: e, ...countsOf(firstEmpty.text) } };
}

interface Row {
  probe: Probe;
  /** 'first' | 'last' | 'one' */
  which: string;
  offset: number;
  seeded: Timing;
  empty: Timing;
}

/** Last page's offset as the console's pager reaches it (multiples of PAGE). */
const lastOffset = (total: number) => Math.max(0, Math.floor((total - 1) / PAGE) * PAGE);

async function timeAll(
  seededUrl: string,
  emptyUrl: string,
  seeded: Ids,
  empty: Ids,
  samples: number,
  log: (s: string) => void,
): Promise<Row[]> {
  const s = client(seededUrl);
  const e = client(emptyUrl);
  const rows: Row[] = [];
  try {
    for (const probe of probes()) {
      const at = async (which: string, offset: number) => {
        const path = probe.paged ? withOffset(probe.path(seeded), offset) : probe.path(seeded);
        const emptyPath = probe.paged ? withOffset(probe.path(empty), offset) : probe.path(empty);
        const { seeded: seededT, empty: emptyT } = await timePair(
          { get: s.get, path },
          { get: e.get, path: emptyPath },
          samples,
        );
        rows.push({ probe, which, offset, seeded: seededT, empty: emptyT });
        log(
          `  ${probe.page}: ${probe.request} ${probe.paged ? `@${offset}` : ''}: p50 ${fmt(percentile(seededT.ms, 50), 1)} ms, p95 ${fmt(percentile(seededT.ms, 95), 1)} ms (empty ${fmt(percentile(emptyT.ms, 50), 1)}); ${seededT.items ?? '-'} of ${seededT.total ?? '-'}`,
        );
        return seededT;
      };
      if (!probe.paged) {
        await at('one', 0);
        continue;
      }
      const first = await at('first', 0);
      const deep = lastOffset(first.total ?? 0);
      if (deep > 0) await at('last', deep);
    }
  } finally {
    s.close();
    e.close();
  }
  return rows;
}

// ---- the case ------------------------------------------------------------------------------------

interface StoreResult {
  dialect: Dialect;
  seeded: Seeded;
  rows: Row[];
}

export async function runConsoleCase(ctx: CaseContext): Promise<void> {
  const started = new Date();
  const loadStart = loadavg()[0]!;
  const calls = callCount();
  const recipients = recipientCount();
  const samples = sampleCount();
  const log = (line: string) => console.log(line);

  // (a) The bundle.
  const { assets } = await bundleSizes();
  log(
    `console built: ${assets.map((a) => `${a.name} ${a.raw} B (br ${a.brotli}, gzip ${a.gzip})`).join(', ')}`,
  );

  const wanted = partsEnv('PARLEY_BENCH_CONSOLE_STORES', STORES);
  const dialects: Dialect[] = [];
  if (wanted.has('sqlite')) dialects.push('sqlite');
  const pgUp = wanted.has('postgres') && (await postgresReachable());
  if (pgUp) dialects.push('postgres');
  else if (wanted.has('postgres')) log('PostgreSQL is not reachable on 127.0.0.1:5432: SQLite only');

  const results: StoreResult[] = [];
  for (const dialect of dialects) {
    log(`${dialect}: seeding ${int(calls)} calls and ${int(recipients)} recipients...`);
    const place = await freshPlace(dialect, 'seeded');
    const seeded = await seed(place, calls, recipients, log);
    const emptyPlace = await freshPlace(dialect, 'empty');
    const emptyIds = await seedEmpty(emptyPlace);
    const app = await startApp(place);
    const emptyApp = await startApp(emptyPlace);
    log(`${dialect}: seeded app on ${app.url}, empty-store app on ${emptyApp.url}`);
    try {
      if (results.length === 0) await checkServed(app.url, assets);
      const rows = await timeAll(app.url, emptyApp.url, seeded.ids, emptyIds, samples, log);
      // The seed is what the pages say it is.
      const all = rows.find((r) => r.probe.request === 'all' && r.which === 'first');
      const recips = rows.find((r) => r.probe.request === 'recipients, all' && r.which === 'first');
      if (all?.seeded.total !== calls)
        throw new Error(`GET /v2/calls counts ${all?.seeded.total}, not ${calls}`);
      if (recips?.seeded.total !== recipients)
        throw new Error(`the campaign's recipients count ${recips?.seeded.total}, not ${recipients}`);
      results.push({ dialect, seeded, rows });
    } finally {
      await app.app.close();
      await emptyApp.app.close();
    }
  }

  // Report.
  const mark = (okay: boolean) => (okay ? 'met' : '**not met**');
  const jsCss = (key: 'brotli' | 'gzip') => assets.reduce((s, a) => s + a[key], 0);
  const kb = (bytes: number) => fmt(bytes / 1000, 1);
  const bundleHeader = [
    'First-load asset',
    'Raw KB',
    'Brotli KB (stored)',
    'Gzip KB (stored)',
    'Served with br / gzip KB',
  ];
  const bundleRows = [
    ...assets.map((a) => [
      `\`${a.name}\` (${a.kind})`,
      kb(a.raw),
      kb(a.brotli),
      kb(a.gzip),
      a.servedBr !== undefined && a.servedGzip !== undefined
        ? `${kb(a.servedBr)} / ${kb(a.servedGzip)}`
        : 'n/a',
    ]),
    [
      `**JS + CSS** (target ≤ ${TARGET_BUNDLE_KB} KB compressed)`,
      kb(assets.reduce((s, a) => s + a.raw, 0)),
      `${kb(jsCss('brotli'))} (${mark(jsCss('brotli') <= TARGET_BUNDLE_KB * 1000)})`,
      `${kb(jsCss('gzip'))} (${mark(jsCss('gzip') <= TARGET_BUNDLE_KB * 1000)})`,
      '',
    ],
  ];

  const listHeader = [
    'Store',
    'Page: request',
    'Offset',
    'Rows / filter total',
    'p50 / p95 ms',
    'Empty store p50 ms',
    'Data cost (p50 − empty p50) ms',
    `Target p95 ≤ ${TARGET_MS} ms`,
  ];
  const listRows: string[][] = [];
  const misses: { dialect: Dialect; row: Row }[] = [];
  for (const r of results) {
    for (const row of r.rows) {
      const p50 = percentile(row.seeded.ms, 50);
      const p95 = percentile(row.seeded.ms, 95);
      const e50 = percentile(row.empty.ms, 50);
      const floor = row.probe.page === 'floor';
      if (!floor && p95 > TARGET_MS) misses.push({ dialect: r.dialect, row });
      listRows.push([
        r.dialect,
        floor ? `${row.probe.request} (HTTP floor)` : `${row.probe.page}: ${row.probe.request}`,
        row.probe.paged ? int(row.offset) : '',
        row.seeded.items === null
          ? ''
          : `${int(row.seeded.items)} / ${int(row.seeded.total ?? row.seeded.items)}`,
        `${fmt(p50, 1)} / ${fmt(p95, 1)}${row.seeded.ms.length < samples ? ` (n=${row.seeded.ms.length})` : ''}`,
        fmt(e50, 1),
        fmt(p50 - e50, 1),
        floor ? '' : mark(p95 <= TARGET_MS),
      ]);
    }
  }
  console.log(textTable(bundleHeader, bundleRows));
  console.log(textTable(listHeader, listRows));
  if (misses.length > 0)
    console.log(
      `over ${TARGET_MS} ms at p95: ${misses.map((m) => `${m.dialect} ${m.row.probe.page}: ${m.row.probe.request} @${m.row.offset}`).join('; ')}`,
    );

  const knobs = Object.keys(process.env)
    .filter((k) => k.startsWith('PARLEY_BENCH_CONSOLE_'))
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  const command = [...knobs, ctx.command].join(' ');
  const seedLines = results
    .map((r) => {
      const s = r.seeded.seedMs;
      return `${r.dialect}: recipients ${fmt(s.recipients / 1000, 1)} s, calls ${fmt(s.calls / 1000, 1)} s, failed recipients ${fmt(s.failed / 1000, 1)} s${r.dialect === 'postgres' ? `, vacuum (analyze) ${fmt(s.vacuum / 1000, 1)} s` : ''}`;
    })
    .join('; ');
  const seededSummary = results[0]?.seeded;
  const listed = results.reduce((n, r) => n + r.rows.filter((row) => row.probe.page !== 'floor').length, 0);
  const missesOf = (d: Dialect) => misses.filter((m) => m.dialect === d).length;
  const verdict =
    misses.length === 0
      ? `all ${listed} list requests answered within ${TARGET_MS} ms at p95.`
      : `${misses.length} of ${listed} list requests over ${TARGET_MS} ms at p95 (${results.map((r) => `${r.dialect} ${missesOf(r.dialect)}`).join(', ')}), marked **not met** below.`;

  writeResultsSection(
    'console',
    `
## Case \`console\`: the console's first load and its list pages on a big store

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Load: 1-minute load average ${fmt(loadStart, 2)} at the start, ${fmt(loadavg()[0]!, 2)} at the end. The machine is
  shared: other work may run.
- Command: \`${command}\`
- Stores: ${pgUp ? 'SQLite (temp dir) and PostgreSQL (a fresh database per store on 127.0.0.1:5432, dropped afterwards)' : 'SQLite only (PostgreSQL was not reachable on 127.0.0.1:5432, or not asked for)'}.
- Targets (issue 24): the console's first load ≤ ${TARGET_BUNDLE_KB} KB of compressed JavaScript and CSS; every list
  page answers in ≤ ${TARGET_MS} ms with 100,000 calls or a million recipients in the store.
- Bundle: \`console/build.mjs\` \`buildConsole()\` (as \`npm ci\` runs it), then the script and stylesheet
  console/dist/index.html loads (read from the page), their stored \`.br\` and \`.gz\` sizes; the last column is
  what the server sent for each (GET with \`accept-encoding: br\`, then \`gzip\`; body bytes).
- Seed: written through the store's repositories in this process, no HTTP: ${AGENTS} agents, ${SMALL_BATCHES}
  small campaigns of ${SMALL_BATCH_SIZE} recipients, one campaign of ${int(recipients)} recipients (batches.create /
  append, ${int(TASK_CHUNK)} at a time), then ${int(calls)} calls in chunks of ${CALL_CHUNK}, oldest first over ${SPAN_DAYS} days,
  each chunk one transaction as the dialer and the calls module write them: calls.createAdmitted, for the
  campaign's calls (every 5th call: ${int(seededSummary?.campaignCalls ?? 0)}) batches.claim + dispatchMany, then
  calls.updateMany to a final status and batches.callEnded. Agents weighted 1/(k+1); outbound 70%, inbound 20%,
  web 10%; statuses ${STATUS_WEIGHTS.map(([s, w]) => `${s} ${w}%`).join(', ')}; answered calls carry a transcript
  (4-13 turns) and an analysis; leads drawn from ${int(LEAD_POOL)} numbers; ${int(seededSummary?.failedTasks ?? 0)}
  recipients failed before dialing; the rest of the campaign queued. Seed times: ${seedLines || 'none'}. SQLite is
  timed as Parley leaves it (no ANALYZE); PostgreSQL after \`vacuum (analyze)\`, which autovacuum would have done
  to tables this fresh.
- Timing: the app (\`createApp\`, role \`api\`, so no dialer) on the seeded store listening in this process,
  every request the console's list pages make (limit ${PAGE}; the calls page's filters each alone, plus one day of
  dates; a campaign's recipients with each status filter; the campaigns and agents lists), at offset 0 and at the
  last page the console's pager reaches (offset = the filter's total rounded down to ${PAGE}), over real HTTP
  (node:http, one keep-alive connection, sequential, time to the whole body), ${WARMUP} warm-up GETs then
  ${samples} timed (${SLOW_SAMPLES} when the first took over ${SLOW_MS} ms). Baseline in the same run: the same request (same
  offset, that store's ids) on a second app over an empty store of the same dialect, timed in turns with the
  seeded one (so other work on the machine falls on both alike), and \`GET /healthz\`.
- Verdict: ${verdict}

${markdownTable(bundleHeader, bundleRows)}

${markdownTable(listHeader, listRows)}

The machine is shared and has few cores, so absolute figures are noisy; the empty-store column is the same
request's cost without data, measured in the same run.
`,
  );
}
