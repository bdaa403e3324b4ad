import { afterAll, describe, expect, it } from 'vitest';
import { http } from './harness.ts';
import {
  allTasks,
  campaignAgent,
  createWorkspace,
  killAll,
  ok,
  postgresStore,
  serve,
  sleep,
  until,
  type Reader,
  type TestStore,
} from './campaign-helpers.ts';

// Scale-out (issue 6, section 4): one `parley serve --role api` and two `--role worker` processes
// on one PostgreSQL database share a campaign of 40 recipients in a workspace limited to 4
// concurrent calls. The calls holding a slot are counted every 50 ms straight from the store
// while it runs: never more than 4. In the end every recipient was dialed exactly once, both
// workers ran calls, the API node ran none, and the batch completed.

const RECIPIENTS = 40;
const MAX_CONCURRENT = 4;
const SPEED = '0.05'; // a ring is 150 ms, a conversation one to two seconds: calls overlap
const FROM = '+14155550100';
const NODES = { api: 'campaign-api', a: 'campaign-worker-a', b: 'campaign-worker-b' };

const pgUrl = process.env.PARLEY_TEST_DATABASE_URL;
if (!pgUrl)
  console.log(
    'campaign-workers skipped: two workers need PostgreSQL and PARLEY_TEST_DATABASE_URL is not set',
  );

describe('two workers share a campaign on PostgreSQL', () => {
  let store: TestStore | undefined;
  let reader: Reader | undefined;

  afterAll(async () => {
    await killAll();
    await reader?.close();
    await store?.cleanup();
  });

  it.skipIf(!pgUrl)(
    'keeps the cap across processes, dials everyone once, on both workers, and completes',
    async () => {
      const started = Date.now();
      store = await postgresStore(pgUrl!, 'parley_workers');
      const env = { ...store.env, PARLEY_SIM_SPEED: SPEED, PARLEY_SIM_MODE: 'text' };
      const { workspaceId, key } = await createWorkspace(env, 'workers', MAX_CONCURRENT);
      reader = await store.reader();
      const db = reader;

      const [api, workerA, workerB] = await Promise.all([
        serve({ env, node: NODES.api, role: 'api', lifetimeMs: 90_000 }),
        serve({ env, node: NODES.a, role: 'worker', lifetimeMs: 90_000 }),
        serve({ env, node: NODES.b, role: 'worker', lifetimeMs: 90_000 }),
      ]);
      console.log(`[workers] three processes ready after ${Date.now() - started} ms`);
      const modelId = await campaignAgent(api.url, key, FROM);

      // The sampler, every 50 ms: calls holding a slot, and calls on the line (ringing or in
      // progress and not yet hung up: after hang-up a call's last work runs without a slot).
      const samples: { slots: number; live: number }[] = [];
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const [row] = await db.all<{ slots: unknown; live: unknown }>(
            `select count(*) filter (where holds_slot = 1) as slots,
                    count(*) filter (where status in ('ringing', 'in-progress') and ended_at is null) as live
               from calls where workspace_id = ?`,
            [workspaceId],
          );
          samples.push({ slots: Number(row?.slots ?? 0), live: Number(row?.live ?? 0) });
          await sleep(50);
        }
      })();

      const batch = await ok(api.url, key, 'POST', '/v2/calls/batch', {
        model_id: modelId,
        from_phone_number: FROM,
        tasks: Array.from({ length: RECIPIENTS }, (_, i) => ({
          to_phone_number: `+1415556${String(1000 + i)}`,
          lead_name: `Lead ${i}`,
        })),
      });
      const batchId = batch.batch_call_id as string;

      // The API node answers the API; it is the workers that dial.
      const final = await until(
        'the batch to complete',
        async () => {
          const b = await ok(api.url, key, 'GET', `/v2/calls/batch/${batchId}`);
          return b.status === 'completed' ? b : undefined;
        },
        45_000,
        100,
      );
      sampling = false;
      await sampler;
      const maxSlots = Math.max(...samples.map((s) => s.slots));
      const maxLive = Math.max(...samples.map((s) => s.live));
      console.log(
        `[workers] batch completed after ${Date.now() - started} ms; ${samples.length} samples, ` +
          `at most ${maxSlots} slots held and ${maxLive} calls ringing or in progress (cap ${MAX_CONCURRENT})`,
      );

      // The cap held across processes, and calls did overlap (the samples measured something).
      expect(samples.length).toBeGreaterThan(20);
      expect(maxSlots).toBeLessThanOrEqual(MAX_CONCURRENT);
      expect(maxLive).toBeLessThanOrEqual(MAX_CONCURRENT);
      expect(maxSlots).toBeGreaterThan(1);

      // Every recipient dialed, once.
      const tasks = await allTasks(api.url, key, batchId);
      expect(tasks).toHaveLength(RECIPIENTS);
      expect(tasks.filter((t) => t.status !== 'dispatched')).toEqual([]);
      expect(final).toMatchObject({
        status: 'completed',
        total_task_count: RECIPIENTS,
        pending_count: 0,
        dispatched_count: RECIPIENTS,
        failed_count: 0,
        canceled_count: 0,
      });
      const perTask = await db.all<{ batch_task_id: string; n: unknown }>(
        'select batch_task_id, count(*) as n from calls where batch_call_id = ? group by batch_task_id',
        [batchId],
      );
      expect(perTask).toHaveLength(RECIPIENTS);
      expect(perTask.filter((r) => Number(r.n) !== 1)).toEqual([]);
      expect(new Set(perTask.map((r) => r.batch_task_id))).toEqual(new Set(tasks.map((t) => t.task_id)));

      // Placed by both workers, none by the API node; all ended, no slot left held.
      const byNode = await db.all<{ node: string | null; n: unknown }>(
        'select node, count(*) as n from calls where batch_call_id = ? group by node order by node',
        [batchId],
      );
      console.log(`[workers] calls per node: ${byNode.map((r) => `${r.node}=${Number(r.n)}`).join(', ')}`);
      expect(byNode.map((r) => r.node).sort()).toEqual([NODES.a, NODES.b]);
      const unfinished = await db.all(
        `select id, status from calls where batch_call_id = ? and (holds_slot = 1 or status in ('pending', 'ringing', 'in-progress'))`,
        [batchId],
      );
      expect(unfinished).toEqual([]);
      const listed = await ok(
        api.url,
        key,
        'GET',
        `/v2/calls?model_id=${modelId}&batch_call_id=${batchId}&limit=1000`,
      );
      expect(listed.pagination.total_records).toBe(RECIPIENTS);

      // Workers serve no API; the API node logged no call of its own.
      expect((await http(workerA.url, 'GET', `/v2/calls/batch/${batchId}`, key)).status).toBe(404);
      expect((await http(workerB.url, 'GET', '/readyz')).status).toBe(200);
      expect(api.lines.filter((l) => l.includes('"call ended"'))).toEqual([]);
      expect(workerA.lines.some((l) => l.includes('"call ended"'))).toBe(true);
      expect(workerB.lines.some((l) => l.includes('"call ended"'))).toBe(true);

      await Promise.all([api.stop(), workerA.stop(), workerB.stop()]);
      console.log(`[workers] test took ${Date.now() - started} ms`);
    },
    90_000,
  );
});
