// Case `webhooks`: signed post-call webhook deliveries per second, against plain unsigned POSTs.
//
// The receiver is a child process (bench/servers/webhook-receiver.ts): plain node:http, verifying
// every signed request with the `standardwebhooks` library. Parley's side runs in this process: the
// real webhook outbox on the embedded SQLite store (fresh temp dir) and the real dispatcher
// (src/webhooks), with the system clock and the core safe fetch. N post-call payloads (realistic,
// about 1.7 KB) are enqueued first (timed separately); then the dispatcher is started and timed
// until the outbox is drained: every delivery claimed, signed, POSTed, answered and recorded
// (attempt log row + delivery update; attempts finishing together share one transaction). The
// baseline sends the same N bodies as plain unsigned POSTs with the same HTTP client and the
// same concurrency, from a loop, with no store. Both phases are preceded by a discarded warm-up.
import { join } from 'node:path';
import { createSafeFetch, silentLogger, systemClock, type HttpPort } from '../src/core/index.ts';
import { createStore, type Store } from '../src/store/index.ts';
import { DEFAULT_WEBHOOK_CONCURRENCY, createWebhookDispatcher } from '../src/webhooks/index.ts';
import type { CaseContext } from './api.ts';
import {
  freePort,
  machine,
  markdownTable,
  startServer,
  tempDir,
  textTable,
  writeResultsSection,
} from './lib.ts';

export const TARGET_DELIVERIES_PER_S = 1000;
const CONCURRENCY = DEFAULT_WEBHOOK_CONCURRENCY;
const WARMUP_DELIVERIES = 1000;
/** Deliveries per measured phase; sized from BENCH_DURATION_S (about 2,000 per second asked). */
export const webhookCount = (durationS: number): number => Math.max(2000, durationS * 2000);
export const webhookPhaseSeconds = (durationS: number): number => 6 + webhookCount(durationS) / 500;

function payload(i: number): unknown {
  return {
    status: 'completed',
    error_message: '',
    lead: { name: 'Jordan Ellis', phone_number: '+14155550100', prompt_variables: { slot: 'Tuesday 9:00' } },
    call: {
      status: 'completed',
      end_call_reason: 'agent_ended',
      model_id: '5b1e8c1e-1f7a-4a43-9b43-4c1a0f0d0001',
      call_id: `call-${i}`,
      timezone: 'America/Los_Angeles',
      duration: 184,
      start_time: '2026-11-22T10:00:00.000-08:00',
      transcript: Array.from({ length: 12 }, (_, t) =>
        t % 2 === 0
          ? 'bot: Hi, this is Maya from Northwind Dental calling about your appointment.'
          : 'human: Yes, Tuesday morning works, can you confirm the time for me please?',
      ).join('\n'),
      recording_sid: null,
      recording_url: '',
      call_sid: `CA${String(i).padStart(32, '0')}`,
      agents_used: ['5b1e8c1e-1f7a-4a43-9b43-4c1a0f0d0001'],
      diversion: null,
      external_id: '',
    },
    executed_actions: {},
    analysis: { call_summary: true, call_summary_feedback: 'Booked a cleaning for Tuesday 9:00.' },
    metadata: { campaign: 'reminders' },
    collected_variables: { slot: { value: 'Tuesday 9:00', collected: true } },
  };
}

async function getJson<T>(url: string, method = 'GET'): Promise<T> {
  const res = await fetch(url, { method });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status}`);
  return (await res.json()) as T;
}

interface ReceiverStats {
  received: number;
  signed: number;
  verified: number;
  rejected: number;
}

async function enqueueAll(
  store: Store,
  workspaceId: string,
  url: string,
  n: number,
  from: number,
): Promise<void> {
  const batch = 500;
  for (let start = 0; start < n; start += batch) {
    await store.transaction(async (repos) => {
      for (let i = start; i < Math.min(n, start + batch); i++) {
        await repos.webhooks.enqueue({
          workspaceId,
          type: 'external_webhook',
          url,
          payload: payload(from + i),
          callId: `call-${from + i}`,
        });
      }
    });
  }
}

/** Enqueues n webhooks, then times the dispatcher from start to an empty outbox. */
async function deliverSigned(
  store: Store,
  workspaceId: string,
  url: string,
  http: HttpPort,
  n: number,
  from: number,
): Promise<{ enqueueMs: number; deliverMs: number }> {
  const e0 = performance.now();
  await enqueueAll(store, workspaceId, url, n, from);
  const enqueueMs = performance.now() - e0;
  const dispatcher = createWebhookDispatcher({
    store,
    clock: systemClock,
    logger: silentLogger(),
    http,
    concurrency: CONCURRENCY,
  });
  const d0 = performance.now();
  dispatcher.start();
  await dispatcher.drain();
  const deliverMs = performance.now() - d0;
  await dispatcher.stop();
  return { enqueueMs, deliverMs };
}

/** The same bodies as plain unsigned POSTs, CONCURRENCY loops sharing one counter. */
async function deliverPlain(url: string, http: HttpPort, n: number, from: number): Promise<number> {
  const bodies = Array.from({ length: n }, (_, i) => JSON.stringify(payload(from + i)));
  let next = 0;
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < n; i = next++) {
        const res = await http({
          url,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: bodies[i],
        });
        if (res.status !== 200) failures++;
      }
    }),
  );
  const ms = performance.now() - t0;
  if (failures > 0) throw new Error(`baseline: ${failures} non-200 answers`);
  return ms;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);

export async function runWebhooksCase(ctx: CaseContext): Promise<void> {
  const started = new Date();
  const n = webhookCount(ctx.settings.durationS);
  const dir = tempDir('webhooks');
  const store = await createStore({ dialect: 'sqlite', file: join(dir, 'parley.db') }, systemClock);
  try {
    await store.migrate();
    const workspace = await store.workspaces.create({
      name: 'bench',
      plan: 'enterprise',
      maxConcurrentCalls: 10,
    });
    const receiver = await startServer({
      name: 'receiver',
      script: 'bench/servers/webhook-receiver.ts',
      env: { PORT: String(await freePort()), BENCH_WEBHOOK_SECRET: workspace.webhookSecret },
    });
    console.log(`receiver listening on ${receiver.url} (pid ${receiver.pid}); ${n} deliveries per phase`);
    const hook = `${receiver.url}/hook`;
    // One client for both phases: the dispatcher's default (core safe fetch, 64 KiB cap).
    const http = createSafeFetch({ allowPrivateNetwork: true, timeoutMs: 11_000, maxBytes: 64 * 1024 });

    // Warm-ups (discarded): JIT, sockets, SQLite pages.
    await deliverPlain(hook, http, WARMUP_DELIVERIES, 0);
    await deliverSigned(store, workspace.id, hook, http, WARMUP_DELIVERIES, 0);
    await getJson(`${receiver.url}/reset`, 'POST');

    console.log('baseline: plain POSTs...');
    const plainMs = await deliverPlain(hook, http, n, 0);
    const afterPlain = await getJson<ReceiverStats>(`${receiver.url}/stats`);
    await getJson(`${receiver.url}/reset`, 'POST');

    console.log('parley: signed deliveries through the outbox...');
    const { enqueueMs, deliverMs } = await deliverSigned(store, workspace.id, hook, http, n, n);
    const stats = await getJson<ReceiverStats>(`${receiver.url}/stats`);
    const pending = await store.webhooks.listDeliveries(workspace.id, 'pending');
    const failed = await store.webhooks.listDeliveries(workspace.id, 'failed');
    const logs = await store.webhooks.listLogs(workspace.id, {}, 1, 1);
    if (stats.verified !== n || stats.rejected !== 0 || pending.length > 0 || failed.length > 0) {
      throw new Error(
        `signed phase: receiver ${JSON.stringify(stats)}, ${pending.length} pending, ${failed.length} failed`,
      );
    }
    if (afterPlain.received !== n) throw new Error(`baseline: receiver got ${afterPlain.received} of ${n}`);

    const signedRate = (n / deliverMs) * 1000;
    const plainRate = (n / plainMs) * 1000;
    const enqueueRate = (n / enqueueMs) * 1000;
    const ratio = signedRate / plainRate;
    const header = ['Phase', 'Deliveries', 'Time s', 'Per second', 'Ratio to baseline'];
    const rows = [
      [
        'Parley: signed, outbox → receiver, logged',
        String(n),
        fmt(deliverMs / 1000, 2),
        fmt(signedRate),
        fmt(ratio, 2),
      ],
      ['Baseline: plain POSTs, same client', String(n), fmt(plainMs / 1000, 2), fmt(plainRate), '1.00'],
      ['Parley: enqueue (500 per transaction)', String(n), fmt(enqueueMs / 1000, 2), fmt(enqueueRate), ''],
    ];
    console.log(textTable(header, rows));
    const met = signedRate >= TARGET_DELIVERIES_PER_S;
    writeResultsSection(
      'webhooks',
      `
## Case \`webhooks\`: signed webhook deliveries per second vs. plain POSTs

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Command: \`${ctx.command}\`
- Receiver: child process (bench/servers/webhook-receiver.ts), plain node:http answering 200 \`{}\`,
  verifying every signed request with the \`standardwebhooks\` library: ${stats.verified} of ${n}
  verified, ${stats.rejected} rejected.
- Parley (this process): the webhook outbox on embedded SQLite in a fresh temp dir and the real
  dispatcher (concurrency ${CONCURRENCY}, system clock). ${n} post-call payloads of about
  ${fmt(JSON.stringify(payload(0)).length / 1024, 1)} KB are enqueued first (timed separately); the
  delivery time runs from \`start()\` to \`drain()\`: each delivery claimed (lease), signed
  (Standard Webhooks), POSTed, answered, and recorded (attempt log row + delivery update;
  attempts finishing together share one transaction). ${logs.total} log rows in total (warm-up included).
- Baseline: the same bodies as unsigned POSTs with the same HTTP client (core \`createSafeFetch\`,
  keep-alive global agent) from ${CONCURRENCY} concurrent loops, no store.
- Warm-up: ${WARMUP_DELIVERIES} deliveries of each kind first, discarded. Deliveries per phase:
  \`BENCH_DURATION_S\` × 2000 (at least 2000).
- Target: ≥ ${TARGET_DELIVERIES_PER_S} signed deliveries per second — ${met ? 'met' : '**not met**'}
  (${fmt(signedRate)}/s; ${fmt(ratio, 2)} of the baseline's rate).

${markdownTable(header, rows)}

The machine is shared (other jobs may run), so absolute figures are noisy; the ratio compares
the two phases measured in the same run.
`,
    );
    await receiver.stop();
  } finally {
    await store.close();
  }
}
