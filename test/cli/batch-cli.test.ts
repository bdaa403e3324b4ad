import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/harness.ts';
import { errorBody, fakeApi, KEY, seed } from './fake-batch-api.ts';

// The real `parley batch` commands (bin/parley.js in a child process) against a fake of the batch
// API. Each run starts the whole CLI (about 2 s of CPU), so the cases that need no child process
// are in batch.test.ts.

let dir: string;
let bigCsv: string;
let smallCsv: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-batch-cli-'));
  const rows = ['phone_number,name,plan'];
  for (let i = 0; i < 25_001; i++) rows.push(`+1415${String(i).padStart(7, '0')},"L, ${i}",gold`);
  bigCsv = join(dir, 'big.csv');
  writeFileSync(bigCsv, `\uFEFF${rows.join('\r\n')}\r\n`);
  smallCsv = join(dir, 'small.csv');
  writeFileSync(smallCsv, 'phone,name\n+14155550100,Ada\n+14155550101,Bob\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.concurrent('parley batch upload', () => {
  it('sends 25,001 rows in three requests: one creating the batch, two appending', async () => {
    const fake = await fakeApi();
    try {
      const r = await runCli(
        ['batch', 'upload', '--agent', 'agent-1', '--from', '+14155550000', '--name', 'Spring'].concat([
          '--trigger',
          '1800000000000',
          '--reserved-concurrency',
          '2',
          bigCsv,
        ]),
        { PARLEY_URL: fake.url, PARLEY_API_KEY: KEY },
      );
      expect(r.stderr).toContain('25,001 recipients in 3 requests');
      expect(r.code).toBe(0);
      expect(fake.seen.map((s) => [s.method, s.path, s.auth, s.body.tasks.length])).toEqual([
        ['POST', '/v2/calls/batch', `Bearer ${KEY}`, 10_000],
        ['POST', '/v2/calls/batch', `Bearer ${KEY}`, 10_000],
        ['POST', '/v2/calls/batch', `Bearer ${KEY}`, 5_001],
      ]);
      const [first, second, third] = fake.seen.map((s) => s.body);
      expect(first).toMatchObject({
        model_id: 'agent-1',
        from_phone_number: '+14155550000',
        name: 'Spring',
        trigger_timestamp: 1_800_000_000_000,
        reserved_concurrency: 2,
      });
      expect(first.batch_call_id).toBeUndefined();
      expect(first.tasks[0]).toEqual({
        to_phone_number: '+14150000000',
        lead_name: 'L, 0',
        custom_variables: { plan: 'gold' },
      });
      const out = JSON.parse(r.stdout);
      for (const body of [second, third]) {
        expect(Object.keys(body).sort()).toEqual(['batch_call_id', 'tasks']);
        expect(body.batch_call_id).toBe(out.batch_call_id);
      }
      expect(third.tasks.at(-1).to_phone_number).toBe('+14150025000');
      expect(out).toMatchObject({ status: 'scheduled', total_task_count: 25_001, pending_count: 25_001 });
      expect(r.stderr).toContain('25,001/25,001 recipients  3/3 requests');
    } finally {
      await fake.close();
    }
  });

  it('stops at a 400 with the server description, naming what was stored', async () => {
    const fake = await fakeApi({
      failPost: (n) =>
        n === 2
          ? {
              status: 400,
              body: errorBody('tasks[3].to_phone_number must be a string', [
                { loc: ['body', 'tasks', 3, 'to_phone_number'], msg: 'must be a string', type: 'type' },
              ]),
            }
          : undefined,
    });
    try {
      const r = await runCli(['batch', 'upload', '--agent', 'a', '--from', '+1', '--url', fake.url, bigCsv], {
        PARLEY_API_KEY: KEY,
      });
      expect(r.code).toBe(1);
      expect(fake.seen).toHaveLength(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('request 2/3');
      expect(r.stderr).toContain('tasks[3].to_phone_number must be a string');
      // tasks[3] of the second request is row 10,004 of the file, on line 10,005.
      expect(r.stderr).toContain('CSV line 10005 (to_phone_number): must be a string');
      expect(r.stderr).toContain(
        `the 10,000 recipients before CSV line 10002 were added to batch ${fake.seen[1]!.body.batch_call_id}`,
      );
    } finally {
      await fake.close();
    }
  });

  it('tries a request once more after a 503, with the key from the data dir', async () => {
    const fake = await fakeApi({
      failPost: (n) => (n === 1 ? { status: 503, body: errorBody('store unavailable') } : undefined),
    });
    writeFileSync(join(dir, 'bootstrap-api-key'), `${KEY}\n`);
    try {
      const r = await runCli(
        ['batch', 'upload', '--agent', 'a', '--from', '+1', '--url', fake.url, smallCsv],
        {
          PARLEY_DATA_DIR: dir,
        },
      );
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('request 1/1: 503 store unavailable; trying once more');
      expect(fake.seen).toHaveLength(2);
      expect(fake.seen[1]?.body).toEqual(fake.seen[0]?.body);
      expect(JSON.parse(r.stdout)).toMatchObject({ total_task_count: 2, model_id: 'a' });
    } finally {
      await fake.close();
    }
  });
});

describe.concurrent('parley batch watch', () => {
  it('--once prints the record', async () => {
    const fake = await fakeApi();
    const id = seed(fake, 7);
    try {
      const r = await runCli(['batch', 'watch', id, '--once', '--url', fake.url, '--key', KEY], {});
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        batch_call_id: id,
        status: 'scheduled',
        total_task_count: 7,
      });
      expect(r.stderr).toContain('scheduled');
      expect(fake.seen.map((s) => [s.method, s.path, s.auth])).toEqual([
        ['GET', `/v2/calls/batch/${id}`, `Bearer ${KEY}`],
      ]);
    } finally {
      await fake.close();
    }
  });

  it('follows the batch until it is completed', async () => {
    const fake = await fakeApi({ statuses: ['scheduled', 'in_progress', 'in_progress', 'completed'] });
    const id = seed(fake, 3);
    try {
      const r = await runCli(['batch', 'watch', id, '--interval-ms', '10', '--url', fake.url], {
        PARLEY_API_KEY: KEY,
      });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        status: 'completed',
        dispatched_count: 3,
        pending_count: 0,
      });
      expect(fake.seen).toHaveLength(4);
      // One line per change when stderr is not a terminal.
      const lines = r.stderr.trim().split('\n');
      expect(lines.map((l) => l.split(' ')[0])).toEqual([
        'scheduled',
        'in_progress',
        'in_progress',
        'completed',
      ]);
    } finally {
      await fake.close();
    }
  });
});
