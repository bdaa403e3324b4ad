// Case `campaign`: batch calls at campaign scale (issue 6, "Benchmark").
//
// (a) Ingest: a real Parley server (child process, `bench/servers/parley.ts`) on a fresh store
//     takes N recipients (1,000,000 by default) in 100 POST /v2/calls/batch requests (one create,
//     then appends), timed request by request. The baseline, in the same run, is the raw store:
//     createStore in this process on a fresh database of the same dialect, store.batches.create /
//     append with the same NewTask arrays, no HTTP. The figure is the API/raw time ratio.
// (b) Listing: GET /v2/calls/batch/{id}/tasks?offset=N-100&limit=100 on that server (and offset 0
//     for comparison), sequential requests over one keep-alive connection from a client process
//     of its own (bench/clients/pages.ts), p50/p95.
// (c) Dialing rate: the real engine (src/app.ts createEngine) in this process on a fresh store,
//     sim carrier at speed 0, builtin model, max_concurrent_calls DIAL_CAP (high, so slots do not
//     bound the rate), one batch of M recipients;
//     calls placed per second from the first dispatch to the last (the calls' created_at), and the
//     largest number of calls holding a slot (sampled with store.calls.busy during the run, and
//     recomputed exactly afterwards from the calls' ringing_at..ended_at intervals).
// (d) Slot refill: a third run with calls lasting a few seconds (sim speed REFILL_SIM_SPEED) and
//     REFILL_CAP slots, so the cap is reached with recipients queued: the k-th call to release its
//     slot (ended_at, its hang-up) is followed by the (REFILL_CAP + k)-th call taking one
//     (ringing_at); the latency is the difference.
// Every store is run on SQLite (temp dir) and on PostgreSQL (a fresh database on 127.0.0.1:5432,
// dropped afterwards) when that server is reachable.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { systemClock } from '../src/core/index.ts';
import { createStore, type NewTask, type Store } from '../src/store/index.ts';
import type { CaseContext } from './api.ts';
import { offlineEngine } from './engine.ts';
import {
  BENCH_API_KEY,
  freePort,
  machine,
  intEnv,
  markdownTable,
  onCleanup,
  ROOT,
  startServer,
  tempDir,
  textTable,
  writeResultsSection,
} from './lib.ts';

const execFileAsync = promisify(execFile);
const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const REQUESTS = 100;
const LIST_REPS = 300;
/** The cap of the dialing-rate runs: high, as the issue asks, so slots do not bound the rate. */
const DIAL_CAP = 1000;
/** The cap of the refill run: reached, with recipients left queued behind it. */
const REFILL_CAP = 200;
const FROM = '+14155550100';
const DAY_MS = 86_400_000;

/** Recipients ingested (BENCH_CAMPAIGN_RECIPIENTS, a multiple of 100; default 1,000,000). */
export const ingestCount = (): number => intEnv('BENCH_CAMPAIGN_RECIPIENTS', 1_000_000, 1000, 1_000_000);
/** Recipients dialed per store and mix: BENCH_DURATION_S x 1,000 (at least 2,000). */
export const dialCount = (durationS: number): number => Math.max(2000, durationS * 500);
/** Recipients of the slot-refill run (calls that last about 1-2 s, so the cap is reached). */
export const refillCount = (durationS: number): number => Math.max(600, durationS * 60);
/** The sim's speed in the refill run: a call of about 30 s at speed 1 lasts about 6 s. */
const REFILL_SIM_SPEED = 0.2;
export const campaignPhaseSeconds = (durationS: number): number =>
  // Two stores x (ingest twice, PostgreSQL the slower + listing + three dialing runs), generous.
  2 * ((8 * ingestCount()) / 20_000 + 30 + (2 * dialCount(durationS)) / 50 + refillCount(durationS) / 20);

const fmt = (n: number, digits = 0) => n.toFixed(digits);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// ---- recipients ------------------------------------------------------------------------------

interface WireTask {
  to_phone_number: string;
  lead_name: string;
  lead_email: string;
  custom_variables: Record<string, string>;
}

const PLANS = ['basic', 'plus', 'premium', 'family'];

/** Request `r`'s recipients, as the API takes them: number, name, email, one custom variable. */
function wireTasks(r: number, perRequest: number): WireTask[] {
  return Array.from({ length: perRequest }, (_, i) => {
    const n = r * perRequest + i;
    return {
      to_phone_number: `+1${String(2_000_000_000 + n).slice(0, 10)}`,
      lead_name: `Lead ${n}`,
      lead_email: `lead${n}@example.com`,
      custom_variables: { plan: PLANS[n % PLANS.length]! },
    };
  });
}

/** The same recipients as the API route hands them to the store. */
const toNewTasks = (tasks: WireTask[]): NewTask[] =>
  tasks.map((t) => ({
    clientId: null,
    toPhoneNumber: t.to_phone_number,
    leadName: t.lead_name,
    leadEmail: t.lead_email,
    customVariables: t.custom_variables,
    overrideModelId: null,
  }));

// ---- stores --------------------------------------------------------------------------------------

type Dialect = 'sqlite' | 'postgres';

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
  const name = `parley_bench_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
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

/** A fresh store of `dialect`, migrated; closed by the caller. */
async function freshStore(dialect: Dialect, label: string): Promise<Store> {
  const store =
    dialect === 'sqlite'
      ? await createStore({ dialect, file: join(tempDir(label), 'parley.db') }, systemClock)
      : await createStore({ dialect, url: await freshPgDatabase(label) }, systemClock);
  await store.migrate();
  return store;
}

// ---- (a) ingest and (b) listing ------------------------------------------------------------------

interface IngestResult {
  rawMs: number;
  apiMs: number;
  apiRequestP50: number;
  apiRequestMax: number;
  listDeep: number[];
  listFirst: number[];
  /** The server's own time for the deep pages (its /metrics histogram): share within 2.5 and 5 ms. */
  serverDeep: { within2_5: number; within5: number };
}

async function rawIngest(dialect: Dialect, total: number): Promise<number> {
  const store = await freshStore(dialect, 'raw');
  try {
    const workspace = await store.workspaces.create({
      name: 'bench',
      plan: 'enterprise',
      maxConcurrentCalls: 10,
    });
    const agent = await store.agents.create(workspace.id, {
      type: 'outbound',
      name: 'Campaign',
      spec: { agent: { prompt: 'p' } },
    });
    const per = total / REQUESTS;
    let ms = 0;
    let batchId = '';
    for (let r = 0; r < REQUESTS; r++) {
      const tasks = toNewTasks(wireTasks(r, per));
      const t0 = performance.now();
      if (r === 0) {
        const batch = await store.batches.create(
          workspace.id,
          {
            agentId: agent.id,
            name: 'bench',
            fromPhoneNumber: FROM,
            fromProvider: 'sim',
            triggerAt: Date.now() + DAY_MS,
            reservedConcurrency: 0,
            callTimeWindow: null,
            lifetimeMs: DAY_MS * 7,
          },
          tasks,
        );
        batchId = batch.id;
      } else {
        const result = await store.batches.append(workspace.id, batchId, tasks);
        if (!result.ok) throw new Error(`raw append ${r}: ${result.reason}`);
      }
      ms += performance.now() - t0;
    }
    const batch = await store.batches.get(workspace.id, batchId);
    if (batch?.totalTaskCount !== total) throw new Error(`raw: ${batch?.totalTaskCount} of ${total} stored`);
    return ms;
  } finally {
    await store.close();
  }
}

export async function apiIngest(dialect: Dialect, total: number): Promise<Omit<IngestResult, 'rawMs'>> {
  const dataDir = tempDir(`${dialect}-api-data`);
  const databaseUrl = dialect === 'postgres' ? await freshPgDatabase('api') : '';
  const server = await startServer({
    name: `parley-${dialect}`,
    script: 'bench/servers/parley.ts',
    nodeArgs: process.env.BENCH_PARLEY_NODE_ARGS?.split(/\s+/).filter(Boolean),
    env: {
      PORT: String(await freePort()),
      PARLEY_DATA_DIR: dataDir,
      PARLEY_DATABASE_URL: databaseUrl,
      PARLEY_BOOTSTRAP_API_KEY: BENCH_API_KEY,
      PARLEY_LOG_LEVEL: 'warn',
      // The platform around calls is measured here; the voice case measures the voice.
      PARLEY_SIM_MODE: 'text',
    },
  });
  console.log(`parley (${dialect}) listening on ${server.url} (pid ${server.pid})`);
  const auth = { authorization: `Bearer ${BENCH_API_KEY}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown, method = 'POST') => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: json,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 500)}`);
    return (JSON.parse(text) as { response: Record<string, unknown> }).response;
  };
  try {
    const agentId = (
      await post('/v2/assistants', {
        type: 'outbound',
        name: 'Campaign',
        agent: { prompt: 'You call about the spring offer.' },
      })
    ).model_id as string;
    await post('/v2/custom-numbers', { phone_number: FROM, provider: 'sim' });
    await post(`/v2/assistants/${agentId}/phone_numbers`, { phone_numbers: [FROM] }, 'PUT');

    const per = total / REQUESTS;
    const times: number[] = [];
    let batchId = '';
    for (let r = 0; r < REQUESTS; r++) {
      const tasks = wireTasks(r, per);
      // Parked (triggered tomorrow) so the dialer does not compete with the ingest.
      const body = JSON.stringify(
        r === 0
          ? { model_id: agentId, from_phone_number: FROM, trigger_timestamp: Date.now() + DAY_MS, tasks }
          : { batch_call_id: batchId, tasks },
      );
      const t0 = performance.now();
      const batch = await post('/v2/calls/batch', body);
      times.push(performance.now() - t0);
      if (r === 0) batchId = batch.batch_call_id as string;
      if (batch.total_task_count !== (r + 1) * per)
        throw new Error(`request ${r}: total_task_count ${String(batch.total_task_count)}`);
    }
    const apiMs = times.reduce((a, b) => a + b, 0);
    times.sort((a, b) => a - b);

    // (b) The last page and the first, each from a fresh child process (bench/clients/pages.ts:
    // sequential, one keep-alive connection, node:http), so that this process's garbage from
    // the ingest is not part of the latency measured.
    const pagePath = (offset: number) => `/v2/calls/batch/${batchId}/tasks?offset=${offset}&limit=100`;
    const timedPages = async (offset: number): Promise<number[]> => {
      const { stdout } = await execFileAsync(
        process.execPath,
        [
          'bin/tsx-run.js',
          'bench/clients/pages.ts',
          server.url,
          BENCH_API_KEY,
          String(LIST_REPS),
          pagePath(offset),
          `/v2/calls/batch/${batchId}`,
        ],
        { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      );
      return JSON.parse(stdout) as number[];
    };
    const getText = async (path: string) => {
      const res = await fetch(`${server.url}${path}`, { headers: auth });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}: ${text.slice(0, 300)}`);
      return text;
    };
    // The server's own time per request, from its request-duration histogram (cumulative
    // buckets of the tasks route).
    const buckets = async () => {
      const text = await getText('/metrics');
      const route = 'route="/v2/calls/batch/:batch_call_id/tasks"';
      const count = (le: string) => {
        const line = text
          .split('\n')
          .find(
            (l) =>
              l.startsWith('parley_http_request_duration_seconds_bucket{') &&
              l.includes(route) &&
              l.includes('status="200"') &&
              l.includes(`le="${le}"`),
          );
        return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
      };
      return { b2_5: count('0.0025'), b5: count('0.005'), all: count('+Inf') };
    };
    const deepOffset = total - 100;
    const check = JSON.parse(await getText(pagePath(deepOffset))) as {
      response: { tasks: { lead_name: string }[] };
    };
    if (check.response.tasks.length !== 100 || check.response.tasks[0]!.lead_name !== `Lead ${deepOffset}`)
      throw new Error(`GET tasks at ${deepOffset}: wrong page`);
    for (let i = 0; i < 20; i++) await getText(pagePath(i % 2 ? 0 : deepOffset)); // the server's warm-up
    const before = await buckets();
    const listDeep = await timedPages(deepOffset);
    const after = await buckets();
    const listFirst = await timedPages(0);
    const n = after.all - before.all;
    if (n !== LIST_REPS) throw new Error(`the server's histogram counted ${n} deep pages, not ${LIST_REPS}`);
    const serverDeep = { within2_5: (after.b2_5 - before.b2_5) / n, within5: (after.b5 - before.b5) / n };
    listDeep.sort((a, b) => a - b);
    listFirst.sort((a, b) => a - b);
    return {
      apiMs,
      apiRequestP50: percentile(times, 50),
      apiRequestMax: times.at(-1)!,
      listDeep,
      listFirst,
      serverDeep,
    };
  } finally {
    await server.stop();
  }
}

// ---- (c) dialing rate and (d) slot refill ----------------------------------------------------

type Mix = 'answered' | 'busy';
type Run = Mix | 'refill';

interface DialResult {
  recipients: number;
  firstToLastMs: number;
  perSecond: number;
  sampledMax: number;
  exactMax: number;
  refill: number[];
  completed: number;
  totalMs: number;
  cap: number;
}

export async function dialRun(
  dialect: Dialect,
  mix: Mix,
  n: number,
  simSpeed = 0,
  cap = DIAL_CAP,
): Promise<DialResult> {
  const store = await freshStore(dialect, `dial-${mix}`);
  try {
    const workspace = await store.workspaces.create({
      name: 'bench',
      plan: 'enterprise',
      maxConcurrentCalls: cap,
    });
    const engine = offlineEngine(store, simSpeed);
    const agent = await store.agents.create(workspace.id, {
      type: 'outbound',
      name: 'Solar',
      spec: {
        agent: {
          prompt: 'You are Sam from SunCo. Ask if they own their home. Ask what time works best for them.',
          greeting_message: 'Hi {name}, this is Sam from SunCo.',
        },
      },
    });
    // Recipients: a person answers (no test-number suffix), or the sim's busy test number.
    const tasks: NewTask[] = Array.from({ length: n }, (_, i) => ({
      toPhoneNumber:
        mix === 'answered' ? `+1415555${String(5000 + (i % 4000))}` : `+1415${String(100 + (i % 900))}1111`,
      leadName: 'Ann Lee',
      leadEmail: `lead${i}@example.com`,
      customVariables: { plan: PLANS[i % PLANS.length]! },
    }));
    // Stored before the engine starts: its first dialer round finds it.
    const batch = await store.batches.create(
      workspace.id,
      {
        agentId: agent.id,
        name: 'bench',
        fromPhoneNumber: FROM,
        fromProvider: 'sim',
        triggerAt: null,
        reservedConcurrency: 0,
        callTimeWindow: null,
        lifetimeMs: DAY_MS * 7,
      },
      tasks,
    );

    // The most calls holding a slot, read right after every admission (the only moments the
    // count grows: the dialer's dispatch, which admits what it creates, and the calls service's
    // admission of waiting calls). A timer would not do: at speed 0 whole calls run in
    // microtasks between two ticks.
    let sampledMax = 0;
    const sample = async () => {
      sampledMax = Math.max(sampledMax, await store.calls.busy(workspace.id));
    };
    const run = engine.calls.run.bind(engine.calls);
    engine.calls.run = async (...args: Parameters<typeof run>) => {
      if (args[1].length > 0) await sample();
      return run(...args);
    };
    const admit = store.calls.admit.bind(store.calls);
    store.calls.admit = async (...args: Parameters<typeof admit>) => {
      const admitted = await admit(...args);
      if (admitted.length > 0) await sample();
      return admitted;
    };
    const t0 = performance.now();
    await engine.start();
    const deadline = Date.now() + 600_000;
    for (;;) {
      const b = await store.batches.get(workspace.id, batch.id);
      if (b && (b.status === 'completed' || b.status === 'canceled')) break;
      if (Date.now() > deadline) throw new Error(`dialing ${n} recipients did not finish in time`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await engine.calls.idle();
    const totalMs = performance.now() - t0;
    await engine.stop(0);

    const rows = (await store.calls.list(workspace.id, { batchCallId: batch.id, limit: n + 1, offset: 0 }))
      .calls;
    if (rows.length !== n) throw new Error(`${rows.length} calls for ${n} recipients`);
    const created = rows.map((r) => r.createdAt).sort((a, b) => a - b);
    const starts = rows.map((r) => r.ringingAt ?? NaN).sort((a, b) => a - b);
    const ends = rows.map((r) => r.endedAt ?? NaN).sort((a, b) => a - b);
    if (
      starts.some((s) => !Number.isFinite(s) || s === 0) ||
      ends.some((e) => !Number.isFinite(e) || e === 0)
    )
      throw new Error('a call was never admitted or never ended');
    const completed = rows.filter((r) => r.status === (mix === 'answered' ? 'completed' : 'busy')).length;

    // Exact maximum of calls holding a slot: ringing_at..ended_at intervals; at equal times the
    // release counts first (a slot is taken only after the release committed).
    const events = [...starts.map((t) => ({ t, d: 1 })), ...ends.map((t) => ({ t, d: -1 }))].sort(
      (a, b) => a.t - b.t || a.d - b.d,
    );
    let live = 0;
    let exactMax = 0;
    for (const e of events) {
      live += e.d;
      exactMax = Math.max(exactMax, live);
    }
    // Slot refill: the k-th release frees the slot the (cap + k)-th admission takes, while the
    // cap is reached (only pairs where the admission did not precede the release).
    const refill: number[] = [];
    for (let k = 0; cap + k < starts.length; k++) {
      const gap = starts[cap + k]! - ends[k]!;
      if (gap >= 0) refill.push(gap);
    }
    refill.sort((a, b) => a - b);
    const firstToLastMs = created.at(-1)! - created[0]!;
    return {
      recipients: n,
      firstToLastMs,
      perSecond: firstToLastMs > 0 ? ((n - 1) / firstToLastMs) * 1000 : Infinity,
      sampledMax,
      exactMax,
      refill,
      completed,
      totalMs,
      cap,
    };
  } finally {
    await store.close();
  }
}

// ---- the case ----------------------------------------------------------------------------------

export async function runCampaignCase(ctx: CaseContext): Promise<void> {
  const started = new Date();
  const total = ingestCount();
  if (total % REQUESTS !== 0) throw new Error(`BENCH_CAMPAIGN_RECIPIENTS must be a multiple of ${REQUESTS}`);
  const dialN = dialCount(ctx.settings.durationS);
  const dialects: Dialect[] = ['sqlite'];
  const pgUp = await postgresReachable();
  if (pgUp) dialects.push('postgres');
  else console.log('PostgreSQL is not reachable on 127.0.0.1:5432: SQLite only');

  const ingest = new Map<Dialect, IngestResult>();
  const dial = new Map<string, DialResult>();
  // Dialing first: after a million-row ingest, PostgreSQL spends minutes checkpointing and
  // vacuuming it, which would slow the dialing runs that followed.
  for (const dialect of dialects) {
    for (const run of ['busy', 'answered', 'refill'] as const satisfies Run[]) {
      const n = run === 'refill' ? refillCount(ctx.settings.durationS) : dialN;
      console.log(`${dialect}: dialing ${n} recipients (${run})...`);
      const r =
        run === 'refill'
          ? await dialRun(dialect, 'answered', n, REFILL_SIM_SPEED, REFILL_CAP)
          : await dialRun(dialect, run, n);
      console.log(
        `${dialect}/${run}: ${fmt(r.perSecond)} placed/s, max holding a slot ${r.sampledMax} sampled / ${r.exactMax} exact, refill p50/p95 ${percentile(r.refill, 50)}/${percentile(r.refill, 95)} ms (${r.refill.length} pairs)`,
      );
      dial.set(`${dialect}/${run}`, r);
    }
  }
  for (const dialect of dialects) {
    console.log(`${dialect}: raw store ingest of ${total} recipients...`);
    const rawMs = await rawIngest(dialect, total);
    console.log(`${dialect}: raw ${fmt(rawMs)} ms; API ingest...`);
    const api = await apiIngest(dialect, total);
    console.log(`${dialect}: API ${fmt(api.apiMs)} ms (ratio ${fmt(api.apiMs / rawMs, 2)})`);
    ingest.set(dialect, { rawMs, ...api });
  }

  const mark = (okay: boolean) => (okay ? 'met' : '**not met**');
  const ingestHeader = [
    'Store',
    'Raw store insert s',
    'API s',
    'API / raw (target ≤ 2)',
    'API request p50 / max ms',
    `Tasks at ${total - 100} p50 / p95 ms (target ≤ 5)`,
    'Tasks at 0 p50 / p95 ms',
    `Tasks at ${total - 100}, server's own time: share ≤ 2.5 / ≤ 5 ms`,
  ];
  const ingestRows = [...ingest].map(([dialect, r]) => {
    const ratio = r.apiMs / r.rawMs;
    const p95 = percentile(r.listDeep, 95);
    return [
      dialect,
      fmt(r.rawMs / 1000, 2),
      fmt(r.apiMs / 1000, 2),
      `${fmt(ratio, 2)} (${mark(ratio <= 2)})`,
      `${fmt(r.apiRequestP50)} / ${fmt(r.apiRequestMax)}`,
      `${fmt(percentile(r.listDeep, 50), 2)} / ${fmt(p95, 2)} (${mark(p95 <= 5)})`,
      `${fmt(percentile(r.listFirst, 50), 2)} / ${fmt(percentile(r.listFirst, 95), 2)}`,
      `${fmt(100 * r.serverDeep.within2_5, 1)}% / ${fmt(100 * r.serverDeep.within5, 1)}%`,
    ];
  });
  const dialHeader = [
    'Store / recipients',
    'Calls',
    'First to last dispatch s',
    'Placed per second (target ≥ 1,000)',
    'Cap',
    'Max holding a slot, sampled / exact (≤ cap)',
    'Slot refill p50 / p95 / max ms (target p95 < 50)',
    'Outcome as expected',
  ];
  const dialRows = [...dial].map(([key, r]) => {
    const p95 = percentile(r.refill, 95);
    return [
      key,
      String(r.recipients),
      fmt(r.firstToLastMs / 1000, 2),
      key.endsWith('/refill')
        ? `${fmt(r.perSecond)} (bounded by call length)`
        : `${fmt(r.perSecond)} (${mark(r.perSecond >= 1000)})`,
      String(r.cap),
      `${r.sampledMax} / ${r.exactMax} (${mark(Math.max(r.sampledMax, r.exactMax) <= r.cap)})`,
      !key.endsWith('/refill')
        ? 'n/a (dialer-bound; see the refill run)'
        : r.refill.length > 0
          ? `${fmt(percentile(r.refill, 50))} / ${fmt(p95)} / ${fmt(r.refill.at(-1)!)} (${mark(p95 < 50)})`
          : 'cap never reached',
      `${r.completed} of ${r.recipients}`,
    ];
  });
  console.log(textTable(ingestHeader, ingestRows));
  console.log(textTable(dialHeader, dialRows));

  writeResultsSection(
    'campaign',
    `
## Case \`campaign\`: batch calls at campaign scale (ingest, deep listing, dialing rate, slot refill)

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Command: \`${ctx.command}\`
- Stores: ${pgUp ? 'SQLite (temp dir) and PostgreSQL (a fresh database per run on 127.0.0.1:5432, dropped afterwards)' : 'SQLite only (PostgreSQL was not reachable on 127.0.0.1:5432)'}.
- (a) Ingest: ${total.toLocaleString('en-US')} recipients (number, name, email, one custom variable)
  in ${REQUESTS} POST /v2/calls/batch requests (one create, then appends; the batch is triggered a
  day later so the dialer stays out of it) to a Parley server in a child process, the requests'
  times summed (JSON built before each timer). Baseline in the same run: the raw store in this
  process on a fresh database of the same dialect, store.batches.create / append with the same
  recipients (the same NewTask arrays the route builds), no HTTP. \`BENCH_CAMPAIGN_RECIPIENTS\`
  changes the count.
- (b) After the ingest, ${LIST_REPS} × GET /v2/calls/batch/{id}/tasks?offset=${total - 100}&limit=100, then
  ${LIST_REPS} × offset=0, each series from a fresh client process (bench/clients/pages.ts: one
  keep-alive connection, node:http, sequential, after 20 warm-up GETs of the batch; the bench
  process's own garbage from the ingest is not the API's latency), the server warmed up with 20
  pages; client-side time to the whole body. The server's own time for the deep pages (onRequest to
  onResponse) comes from its request-duration histogram (GET /metrics before and after: the
  share of those requests within its 2.5 ms and 5 ms buckets).
- (c) Dialing (run before the ingests, whose aftermath on PostgreSQL, checkpoints and vacuum of a
  million rows, would slow it): the engine (createEngine) in this process on a fresh store, sim carrier at speed 0,
  builtin model, a high cap (max_concurrent_calls ${DIAL_CAP}, as the issue asks: slots must not
  bound the rate; the dialer claims at most 200 recipients per round), one batch of
  ${dialN.toLocaleString('en-US')} recipients (\`BENCH_DURATION_S\` × 500, at least 2,000) per
  store and mix: \`busy\` uses the sim's busy
  test number (the call ends when dialed: the dialer, slots and call lifecycle without a
  conversation), \`answered\`: a person answers and the builtin agent talks with the builtin
  person (about 4 turns), analysis and post-call webhook queued. Placed per second: recipients
  whose call row was created (dispatched) from the first to the last, over that time. Calls
  holding a slot: store.calls.busy read after every admission, and the exact maximum over the
  calls' ringing_at..ended_at intervals afterwards (ended_at: the hang-up, when the slot goes
  back).
- (d) Slot refill: a third run per store (\`refill\`: ${refillCount(ctx.settings.durationS)} answered recipients, sim
  speed ${REFILL_SIM_SPEED}, max_concurrent_calls ${REFILL_CAP}, so a call lasts a few seconds, the
  cap is reached and recipients stay queued while the dialer keeps up): the k-th slot release
  (ended_at: the hang-up; the slot goes back in that moment's group of releases, whose statement
  hands it to a standby call, or else wakes the dialer) against the (${REFILL_CAP} + k)-th
  admission (ringing_at: that statement, or the dispatch transaction that creates the call and
  takes its slot), for every pair where the cap was reached (the admission did not come first);
  ms resolution.

${markdownTable(ingestHeader, ingestRows)}

${markdownTable(dialHeader, dialRows)}

The machine is shared and has few cores, so absolute figures are noisy; the ratio in (a) compares
two runs on the same machine in the same run.
`,
  );
}
