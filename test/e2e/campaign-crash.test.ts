import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allTasks,
  campaignAgent,
  createWorkspace,
  killAll,
  ok,
  postgresStore,
  serve,
  sqliteStore,
  until,
  type Reader,
  type Server,
  type TestStore,
} from './campaign-helpers.ts';

// At most once, nothing lost (issue 6, section 3; DESIGN.md section 3): a real `parley serve`
// runs a campaign of 60 recipients and is killed with SIGKILL four times at different moments,
// then restarted on the same data under the same node name (so its restart recovery runs), until
// the batch completes. Then: no recipient has more than one call, every recipient is final, the
// calls a kill interrupted ended `failed` with an explicit error_message and were not placed
// again, the claims a kill left without a call went back to the queue (and were dialed once),
// and the batch's counters equal the recipients counted by status.

const RECIPIENTS = 60;
const MAX_CONCURRENT = 5;
const SPEED = '0.02'; // a ring is 60 ms, a conversation about a second
const NODE = 'crash-node';
const FROM = '+14155550100';

/** Mostly people who answer; some no-answer (long rings), busy and carrier failures. */
function recipient(i: number): { to_phone_number: string; lead_name: string } {
  const suffix = i % 12 === 5 ? '0000' : i % 15 === 8 ? '1111' : i % 20 === 13 ? '2222' : String(1000 + i);
  return { to_phone_number: `+1415556${suffix}`, lead_name: `Lead ${i}` };
}

const FINAL_TASK = ['dispatched', 'failed', 'canceled'];
const LIVE_CALL = ['pending', 'ringing', 'in-progress', 'registered', 'paused'];

interface Kill {
  moment: string;
  /** Batch calls the kill caught ringing or in progress: their outcome is unknown. */
  interrupted: { id: string; batch_task_id: string; status: string }[];
  /** Recipients claimed by the dead node without a call: provably not dialed. */
  claimedWithoutCall: string[];
  /** Recipients with a call at the kill. */
  withCall: number;
}

const targets: { name: string; make: () => Promise<TestStore> }[] = [{ name: 'sqlite', make: sqliteStore }];
const pgUrl = process.env.PARLEY_TEST_DATABASE_URL;
if (pgUrl) targets.push({ name: 'postgres', make: () => postgresStore(pgUrl, 'parley_crash') });

for (const { name, make } of targets) {
  describe(`a campaign survives kill -9 [${name}]`, () => {
    let store: TestStore;
    let reader: Reader | undefined;

    beforeAll(async () => {
      store = await make();
    });
    afterAll(async () => {
      await killAll();
      await reader?.close();
      await store?.cleanup();
    });

    it('dials no recipient twice, loses none, fails interrupted calls and completes', async () => {
      const started = Date.now();
      const env = { ...store.env, PARLEY_SIM_SPEED: SPEED, PARLEY_SIM_MODE: 'text' };
      const { key } = await createWorkspace(env, 'crash', MAX_CONCURRENT);
      reader = await store.reader();
      const db = reader;
      const start = () => serve({ env, node: NODE, lifetimeMs: 60_000 });

      let server: Server = await start();
      const modelId = await campaignAgent(server.url, key, FROM);
      const batch = await ok(server.url, key, 'POST', '/v2/calls/batch', {
        model_id: modelId,
        from_phone_number: FROM,
        tasks: Array.from({ length: RECIPIENTS }, (_, i) => recipient(i)),
      });
      const batchId = batch.batch_call_id as string;
      expect(batch.total_task_count).toBe(RECIPIENTS);

      const count = async (query: string, params: unknown[] = [batchId]) =>
        Number((await db.all<{ n: unknown }>(query, params))[0]?.n ?? 0);
      const progress = async () => ({
        withCall: await count('select count(*) as n from calls where batch_call_id = ?'),
        done: await count(
          `select count(*) as n from batch_tasks where batch_id = ? and status in ('dispatched', 'failed', 'canceled')`,
        ),
        ringing: await count(
          `select count(*) as n from calls where batch_call_id = ? and status = 'ringing'`,
        ),
        talking: await count(
          `select count(*) as n from calls where batch_call_id = ? and status = 'in-progress'`,
        ),
      });

      const kills: Kill[] = [];
      /** kill -9, then what the dead process left behind, read from the store. */
      async function kill(moment: string) {
        await server.kill();
        const interrupted = await db.all<Kill['interrupted'][number]>(
          `select id, batch_task_id, status from calls where batch_call_id = ? and status in ('ringing', 'in-progress') order by seq`,
          [batchId],
        );
        const claimed = await db.all<{ id: string }>(
          `select id from batch_tasks where batch_id = ? and status = 'claimed' and call_id is null`,
          [batchId],
        );
        const record: Kill = {
          moment,
          interrupted,
          claimedWithoutCall: claimed.map((c) => c.id),
          withCall: (await progress()).withCall,
        };
        kills.push(record);
        console.log(
          `[${name}] kill -9 ${moment} at ${Date.now() - started} ms: ${record.withCall} recipients had a call, ` +
            `${interrupted.length} calls interrupted (${interrupted.map((c) => c.status).join(', ')}), ` +
            `${record.claimedWithoutCall.length} claims without a call`,
        );
      }
      /** Restarts on the same data; its log tells how many claims it put back. */
      async function restart() {
        server = await start();
      }
      const released = (s: Server) =>
        s.lines
          .map((l) => {
            try {
              return JSON.parse(l) as { msg?: string; released?: number };
            } catch {
              return {};
            }
          })
          .filter((l) => l.msg === 'recipients claimed before a restart returned to the queue')
          .reduce((sum, l) => sum + (l.released ?? 0), 0);

      // 1. Right after the batch was created: as soon as the dialer's first claims are committed
      // and before their calls are (a window of a few ms, caught when the poll is fast enough).
      const claimDeadline = Date.now() + 2000;
      while (Date.now() < claimDeadline) {
        const claims = await count(
          `select count(*) as n from batch_tasks where batch_id = ? and status = 'claimed' and call_id is null`,
        );
        if (claims > 0) break;
      }
      await kill('right after the batch was created');
      await restart();
      expect(released(server)).toBe(kills[0]!.claimedWithoutCall.length);

      // 2. While the first calls ring.
      await until(
        'a ringing call',
        async () => ((await progress()).ringing > 0 ? true : undefined),
        15_000,
        3,
      );
      await kill('while calls ring');
      await restart();
      expect(released(server)).toBe(kills[1]!.claimedWithoutCall.length);

      // 3. Mid-campaign, with calls in progress.
      await until(
        'calls in progress mid-campaign',
        async () => {
          const p = await progress();
          return p.done >= RECIPIENTS * 0.4 && p.talking > 0 ? true : undefined;
        },
        20_000,
        5,
      );
      await kill('mid-campaign with calls in progress');
      await restart();
      expect(released(server)).toBe(kills[2]!.claimedWithoutCall.length);

      // 4. Near the end, with the last calls in progress.
      await until(
        'the last calls',
        async () => {
          const p = await progress();
          return p.done >= RECIPIENTS - 4 && p.ringing + p.talking > 0 ? true : undefined;
        },
        20_000,
        5,
      );
      await kill('near the end');
      await restart();
      expect(released(server)).toBe(kills[3]!.claimedWithoutCall.length);

      // The last run completes the batch.
      const final = await until(
        'the batch to complete',
        async () => {
          const b = await ok(server.url, key, 'GET', `/v2/calls/batch/${batchId}`);
          return b.status === 'completed' ? b : undefined;
        },
        30_000,
        100,
      );
      console.log(`[${name}] batch completed after ${Date.now() - started} ms`);

      // Every recipient is final, and the counters are the recipients counted by status.
      const tasks = await allTasks(server.url, key, batchId);
      expect(tasks).toHaveLength(RECIPIENTS);
      expect(tasks.filter((t) => !FINAL_TASK.includes(t.status))).toEqual([]);
      const byStatus = (s: string) => tasks.filter((t) => t.status === s).length;
      expect(final).toMatchObject({
        status: 'completed',
        total_task_count: RECIPIENTS,
        pending_count: 0,
        dispatched_count: byStatus('dispatched'),
        failed_count: byStatus('failed'),
        canceled_count: byStatus('canceled'),
      });
      // Every number here is dialable: each recipient got exactly one call.
      expect(byStatus('dispatched')).toBe(RECIPIENTS);

      // At most one call per recipient (the store's own view), each final and ended.
      const calls = await db.all<{
        id: string;
        batch_task_id: string;
        status: string;
        error_message: string | null;
        holds_slot: unknown;
      }>('select id, batch_task_id, status, error_message, holds_slot from calls where batch_call_id = ?', [
        batchId,
      ]);
      const perTask = new Map<string, number>();
      for (const c of calls) perTask.set(c.batch_task_id, (perTask.get(c.batch_task_id) ?? 0) + 1);
      expect([...perTask.values()].filter((n) => n > 1)).toEqual([]);
      expect(calls).toHaveLength(byStatus('dispatched'));
      expect(calls.filter((c) => LIVE_CALL.includes(c.status))).toEqual([]);
      expect(calls.filter((c) => Number(c.holds_slot) !== 0)).toEqual([]);
      const callOf = new Map(calls.map((c) => [c.id, c]));
      for (const t of tasks.filter((t) => t.status === 'dispatched')) {
        expect(t.call_id, `recipient ${t.task_id}`).not.toBeNull();
        expect(callOf.get(t.call_id!)?.batch_task_id, `recipient ${t.task_id}`).toBe(t.task_id);
        expect(t.call_status).toBe(callOf.get(t.call_id!)?.status);
      }
      const [row] = await db.all<{ dispatched_count: unknown; calls_ended_count: unknown }>(
        'select dispatched_count, calls_ended_count from batches where id = ?',
        [batchId],
      );
      expect(Number(row!.calls_ended_count)).toBe(Number(row!.dispatched_count));

      // The calls a kill interrupted failed with an explicit reason; their recipients were not
      // called again (the one call each has is the interrupted one).
      const interrupted = kills.flatMap((k) => k.interrupted);
      expect(interrupted.length, 'the kills interrupted calls').toBeGreaterThan(0);
      const listed = await ok(
        server.url,
        key,
        'GET',
        `/v2/calls?model_id=${modelId}&batch_call_id=${batchId}&limit=1000`,
      );
      expect(listed.pagination.total_records).toBe(RECIPIENTS);
      const fromApi = new Map(
        (listed.calls as { call_id: string; call_status: string; error_message: string | null }[]).map(
          (c) => [c.call_id, c],
        ),
      );
      for (const c of interrupted) {
        const now = callOf.get(c.id);
        expect(now, `interrupted call ${c.id}`).toBeDefined();
        expect(now!.status).toBe('failed');
        expect(now!.error_message).toMatch(/interrupted/);
        expect(fromApi.get(c.id)).toMatchObject({ call_status: 'failed' });
        expect(fromApi.get(c.id)?.error_message).toMatch(/interrupted/);
        const task = tasks.find((t) => t.task_id === c.batch_task_id);
        expect(task).toMatchObject({ status: 'dispatched', call_id: c.id, call_status: 'failed' });
      }
      // Claims a kill left without a call went back to the queue and were dialed once.
      for (const id of kills.flatMap((k) => k.claimedWithoutCall)) {
        expect(perTask.get(id), `recipient ${id}`).toBe(1);
        const interruptedCall = interrupted.find((c) => c.batch_task_id === id);
        if (!interruptedCall) expect(tasks.find((t) => t.task_id === id)?.status).toBe('dispatched');
      }

      // No call but the interrupted ones carries the restart's error.
      const interruptedIds = new Set(interrupted.map((c) => c.id));
      expect(
        calls.filter((c) => !interruptedIds.has(c.id) && /interrupted/.test(c.error_message ?? '')),
      ).toEqual([]);

      await server.kill();
      console.log(`[${name}] crash test took ${Date.now() - started} ms`);
    }, 90_000);
  });
}
