import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiClient,
  resolveTarget,
  retryDelayMs,
  runBatch,
  uploadChunks,
  withRetry,
  type BatchRecord,
  type BatchRequestBody,
} from '../../cli/batch.ts';
import { chunkRecipients, ParleyError, readRecipients, type Chunk, type Recipient } from '../../sdk/index.ts';
import { errorBody, fakeApi, KEY, seed } from './fake-batch-api.ts';

function* csvRows(n: number): Generator<string> {
  yield 'phone,name,plan\n';
  for (let i = 0; i < n; i++) yield `+1415${String(i).padStart(7, '0')},Lead ${i},p${i % 3}\n`;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function record(id: string, total: number): BatchRecord {
  const now = new Date(0).toISOString();
  return {
    batch_call_id: id,
    name: 'test',
    status: 'scheduled',
    model_id: 'agent-1',
    from_phone_number: '+14155550000',
    trigger_timestamp: null,
    reserved_concurrency: 0,
    call_time_window: null,
    total_task_count: total,
    pending_count: total,
    dispatched_count: 0,
    failed_count: 0,
    canceled_count: 0,
    created_at: now,
    updated_at: now,
    expires_at: now,
  };
}

describe('splitting recipients into requests', () => {
  it('sends 25,001 rows as 10,000 + 10,000 + 5,001: the first creates, the rest append', async () => {
    const bodies: BatchRequestBody[] = [];
    let total = 0;
    const result = await uploadChunks({
      chunks: chunkRecipients(readRecipients(csvRows(25_001))),
      create: {
        model_id: 'agent-1',
        from_phone_number: '+14155550000',
        name: 'Spring',
        reserved_concurrency: 2,
      },
      send: async (body, info) => {
        bodies.push(body);
        expect(info.sentBefore).toBe(total);
        total += body.tasks.length;
        return record('b-1', total);
      },
    });
    expect(bodies.map((b) => b.tasks.length)).toEqual([10_000, 10_000, 5_001]);
    const [first, second, third] = bodies;
    expect(first).toMatchObject({
      model_id: 'agent-1',
      from_phone_number: '+14155550000',
      name: 'Spring',
      reserved_concurrency: 2,
    });
    expect(first).not.toHaveProperty('batch_call_id');
    for (const b of [second, third]) {
      expect(Object.keys(b!).sort()).toEqual(['batch_call_id', 'tasks']);
      expect(b).toMatchObject({ batch_call_id: 'b-1' });
    }
    expect(first!.tasks[0]).toEqual({
      to_phone_number: '+14150000000',
      lead_name: 'Lead 0',
      custom_variables: { plan: 'p0' },
    });
    expect(third!.tasks.at(-1)?.to_phone_number).toBe('+14150025000');
    expect(result.total_task_count).toBe(25_001);
  });

  it('appends every request to a given batch', async () => {
    const bodies: BatchRequestBody[] = [];
    await uploadChunks({
      chunks: chunkRecipients(readRecipients(csvRows(12_000))),
      batchCallId: 'existing',
      send: async (body) => (bodies.push(body), record('existing', 0)),
    });
    expect(bodies.map((b) => [b.tasks.length, 'batch_call_id' in b && b.batch_call_id])).toEqual([
      [10_000, 'existing'],
      [2_000, 'existing'],
    ]);
  });

  it('also splits by size, keeping the CSV line of each task', async () => {
    async function* rows(): AsyncGenerator<Recipient> {
      for (let i = 0; i < 10; i++) {
        yield {
          task: { to_phone_number: `+1${i}`, custom_variables: { blob: 'x'.repeat(5_000) } },
          line: i + 2,
        };
      }
    }
    const chunks: Chunk[] = await collect(chunkRecipients(rows(), 10_000, 16_384));
    expect(chunks.map((c) => c.tasks.length)).toEqual([2, 2, 2, 2, 2]);
    expect(chunks[1]?.lines).toEqual([4, 5]);
  });

  it('refuses to send nothing', async () => {
    await expect(
      uploadChunks({
        chunks: chunkRecipients(readRecipients(csvRows(0))),
        batchCallId: 'x',
        send: async () => record('x', 0),
      }),
    ).rejects.toThrow('no recipients');
  });
});

describe('server and key', () => {
  it('takes flags, then PARLEY_URL and PARLEY_API_KEY, then HOST/PORT and the bootstrap key file', () => {
    expect(
      resolveTarget({ url: 'http://h:1/v2/', key: 'k' }, { PARLEY_URL: 'http://x', PARLEY_API_KEY: 'e' }),
    ).toEqual({ url: 'http://h:1', key: 'k' });
    expect(resolveTarget({}, { PARLEY_URL: 'http://x:9', PARLEY_API_KEY: 'e' })).toEqual({
      url: 'http://x:9',
      key: 'e',
    });
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-'));
    try {
      writeFileSync(join(dir, 'bootstrap-api-key'), 'pk_file\n');
      expect(resolveTarget({}, { PARLEY_DATA_DIR: dir, HOST: '0.0.0.0', PORT: '9000' })).toEqual({
        url: 'http://127.0.0.1:9000',
        key: 'pk_file',
      });
      expect(resolveTarget({}, { PARLEY_DATA_DIR: dir }).url).toBe('http://127.0.0.1:8080');
      expect(() => resolveTarget({}, { PARLEY_DATA_DIR: join(dir, 'none') })).toThrow('no API key');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// In-process runs of the commands against the fake API (batch-cli.test.ts runs the real binary).
describe('batch commands in process', () => {
  afterEach(() => vi.restoreAllMocks());
  const usage = (m: string) => new Error(`usage: ${m}`);
  const quiet = () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    return out;
  };

  it('sends nothing when a row has no number, naming its line', async () => {
    const fake = await fakeApi();
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-'));
    try {
      const file = join(dir, 'r.csv');
      writeFileSync(file, 'phone,name\n+14155550100,Ada\n,Bob\n');
      quiet();
      await expect(
        runBatch('upload', ['--agent', 'a', '--from', '+1', '--url', fake.url, '--key', KEY, file], usage),
      ).rejects.toThrow(`${file}: line 3: no phone number; nothing was sent`);
      expect(fake.seen).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await fake.close();
    }
  });

  it('watch fails on an unknown batch and on a wrong key', async () => {
    const fake = await fakeApi();
    const id = seed(fake, 1);
    try {
      quiet();
      await expect(
        runBatch('watch', ['00000000-0000-4000-8000-000000000000', '--url', fake.url, '--key', KEY], usage),
      ).rejects.toThrow('not found');
      await expect(runBatch('watch', [id, '--url', fake.url, '--key', 'pk_wrong'], usage)).rejects.toThrow(
        '401 Unauthorized: Invalid or expired token.',
      );
      expect(fake.seen).toHaveLength(2);
    } finally {
      await fake.close();
    }
  });

  it('reports command-line mistakes as usage errors', async () => {
    quiet();
    await expect(runBatch('upload', ['x.csv'], usage)).rejects.toThrow('usage: batch upload needs --agent');
    await expect(runBatch('upload', ['--batch', 'b', '--agent', 'a', 'x.csv'], usage)).rejects.toThrow(
      'usage: --batch appends to an existing batch; drop --agent',
    );
    await expect(runBatch('watch', [], usage)).rejects.toThrow('usage: batch watch takes one batch_call_id');
    await expect(runBatch('watch', ['b', '--interval-ms', 'soon'], usage)).rejects.toThrow(
      'usage: --interval-ms',
    );
    await expect(runBatch('nope', [], usage)).rejects.toThrow('usage: unknown batch command: nope');
  });

  it('the client reads error envelopes and retries once on a 5xx only', async () => {
    const fake = await fakeApi({
      failPost: (n) =>
        n <= 2 ? { status: 503, body: { detail: { status: 'error', description: 'down' } } } : undefined,
    });
    try {
      const client = new ApiClient({ url: fake.url, key: KEY });
      const err = await withRetry(() => client.createBatch({ tasks: [] }), undefined, 1).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ParleyError);
      expect((err as ParleyError).summary).toBe('503 down');
      expect(fake.seen).toHaveLength(2);
      const bad = await withRetry(() => client.createBatch({ tasks: [] }), undefined, 1).catch(
        (e: unknown) => e,
      );
      expect((bad as ParleyError).status).toBe(400);
      expect(fake.seen).toHaveLength(3);
    } finally {
      await fake.close();
    }
  });

  it('the client retries a 429 after the Retry-After it names, waiting at most 30 s', async () => {
    const fake = await fakeApi({
      failPost: (n) =>
        n === 1
          ? { status: 429, body: errorBody('too many requests'), headers: { 'retry-after': '0' } }
          : undefined,
    });
    try {
      const client = new ApiClient({ url: fake.url, key: KEY });
      const retried: ParleyError[] = [];
      const created = await withRetry(
        () =>
          client.createBatch({ model_id: 'a', from_phone_number: '+1', tasks: [{ to_phone_number: '+2' }] }),
        (err) => retried.push(err),
        60_000,
      );
      expect(created).toMatchObject({ model_id: 'a', total_task_count: 1 });
      expect(retried.map((e) => [e.status, e.summary, e.retryAfterMs])).toEqual([
        [429, '429 too many requests', 0],
      ]);
      expect(fake.seen).toHaveLength(2);
      expect(fake.seen[1]?.body).toEqual(fake.seen[0]?.body);
    } finally {
      await fake.close();
    }
    const slow = (ms?: number) => new ParleyError('slow', 429, 'slow', [], ms);
    expect(retryDelayMs(slow(2_000), 500)).toBe(2_000);
    expect(retryDelayMs(slow(3_600_000), 500)).toBe(30_000);
    expect(retryDelayMs(slow(), 500)).toBe(500);
  });

  it('the client retries once when the server cannot be reached, and the CLI names the address', async () => {
    const fake = await fakeApi();
    await fake.close();
    const client = new ApiClient({ url: fake.url, key: KEY });
    const retried: ParleyError[] = [];
    const err = await withRetry(
      () => client.getBatch('b'),
      (e) => retried.push(e),
      1,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParleyError);
    expect((err as ParleyError).status).toBeUndefined();
    expect(retried).toHaveLength(1);
    quiet();
    await expect(runBatch('watch', ['b', '--once', '--url', fake.url, '--key', KEY], usage)).rejects.toThrow(
      `cannot reach ${fake.url}/v2/calls/batch/b: ECONNREFUSED`,
    );
  });
});
