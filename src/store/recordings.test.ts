import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileRecordings } from './recordings.ts';
import { createMemoryRecordings, runRecordingStorageContract } from './testing/index.ts';

// Both recording storages pass the contract; the files also keep to their layout and never leave
// a temporary file behind or write outside their folder.

runRecordingStorageContract('memory', async () => ({ storage: createMemoryRecordings() }));

runRecordingStorageContract('files', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'parley-recordings-'));
  return { storage: createFileRecordings(dir), close: () => rm(dir, { recursive: true, force: true }) };
});

describe('file recordings', () => {
  let root: string;
  let dir: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'parley-recordings-'));
    dir = join(root, 'recordings');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** Every file under `root`, relative to it. */
  const files = async () => {
    const found: string[] = [];
    for (const entry of await readdir(root, { recursive: true })) {
      if ((await stat(join(root, entry))).isFile()) found.push(entry);
    }
    return found.sort();
  };

  it('keeps <dir>/<workspace>/<call>.wav and no temporary file once finished or aborted', async () => {
    const storage = createFileRecordings(dir);
    const kept = await storage.create('ws_1', 'call-1');
    const dropped = await storage.create('ws_1', 'call-2');
    await kept.write(new Uint8Array([0, 0, 7, 8]));
    await dropped.write(new Uint8Array([1]));
    expect((await files()).every((f) => f.endsWith('.part'))).toBe(true);
    await kept.finish(new Uint8Array([5, 6]));
    await dropped.abort();
    expect(await files()).toEqual(['recordings/ws_1/call-1.wav']);
    expect([...(await readFile(join(dir, 'ws_1', 'call-1.wav')))]).toEqual([5, 6, 7, 8]);
  });

  it('never reads, writes or deletes outside its folder', async () => {
    await writeFile(join(root, 'secret.wav'), 'secret');
    const storage = createFileRecordings(dir);
    await expect(storage.create('..', 'secret')).rejects.toThrow();
    expect(await storage.open('..', 'secret')).toBeNull();
    expect(await storage.remove('..', 'secret')).toBe(false);
    expect(await storage.remove('ws_1', '../../secret')).toBe(false);
    expect(await files()).toEqual(['secret.wav']);
  });
});
