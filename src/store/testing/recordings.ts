import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkRecordingKey,
  isRecordingKey,
  type RecordingStorage,
  type RecordingWriter,
  type StoredRecording,
} from '../recordings.ts';

// The recording storage seam: an in-memory fake, and the contract every implementation passes.

/** Recordings in memory, with the same rules as the files (ids, visible only once finished). */
export function createMemoryRecordings(): RecordingStorage & { readonly count: number } {
  const finished = new Map<string, Uint8Array>();
  /** What open writers wrote so far, by call (a writer that is never finished is a dead one). */
  const unfinished = new Map<string, Uint8Array[]>();
  const keyOf = (workspaceId: string, callId: string) => `${workspaceId}/${callId}`;

  return {
    async create(workspaceId, callId) {
      checkRecordingKey(workspaceId, callId);
      const chunks: Uint8Array[] = [];
      const key = keyOf(workspaceId, callId);
      unfinished.set(key, chunks);
      const done = () => {
        if (unfinished.get(key) === chunks) unfinished.delete(key);
      };
      let state: 'open' | 'finished' | 'aborted' = 'open';
      const writer: RecordingWriter = {
        async write(chunk) {
          if (state !== 'open') throw new Error(`the recording writer is ${state}`);
          chunks.push(chunk.slice());
        },
        async finish(header) {
          if (state !== 'open') throw new Error(`the recording writer is ${state}`);
          state = 'finished';
          done();
          const written = Buffer.concat(chunks);
          const file = new Uint8Array(Math.max(written.length, header.length));
          file.set(written, 0);
          file.set(header, 0);
          finished.set(keyOf(workspaceId, callId), file);
        },
        async abort() {
          if (state === 'open') state = 'aborted';
          done();
          chunks.length = 0;
        },
      };
      return writer;
    },

    async open(workspaceId, callId): Promise<StoredRecording | null> {
      if (!isRecordingKey(workspaceId, callId)) return null;
      const bytes = finished.get(keyOf(workspaceId, callId));
      if (!bytes) return null;
      return {
        size: bytes.length,
        stream: (range) =>
          Readable.from([
            Buffer.from(bytes.subarray(range?.start ?? 0, (range?.end ?? bytes.length - 1) + 1)),
          ]),
      };
    },

    async remove(workspaceId, callId) {
      if (!isRecordingKey(workspaceId, callId)) return false;
      return finished.delete(keyOf(workspaceId, callId));
    },

    async unfinished() {
      return [...unfinished.keys()].map((key) => {
        const [workspaceId = '', callId = ''] = key.split('/');
        return { workspaceId, callId };
      });
    },

    async recover(workspaceId, callId, seal) {
      if (!isRecordingKey(workspaceId, callId)) return null;
      const key = keyOf(workspaceId, callId);
      const chunks = unfinished.get(key);
      if (!chunks) return null;
      unfinished.delete(key);
      const written = Buffer.concat(chunks);
      const sealed = finished.has(key) ? null : seal(written.length);
      if (!sealed || sealed.bytes < sealed.header.length) return null;
      const file = new Uint8Array(written.subarray(0, sealed.bytes));
      file.set(sealed.header, 0);
      finished.set(key, file);
      return file.length;
    },

    get count() {
      return finished.size;
    },
  };
}

export interface RecordingStorageSubject {
  storage: RecordingStorage;
  close?: () => Promise<void>;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Uint8Array));
  return Buffer.concat(parts);
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** The contract every RecordingStorage passes. */
export function runRecordingStorageContract(name: string, make: () => Promise<RecordingStorageSubject>) {
  describe(`recording storage contract [${name}]`, () => {
    let subject: RecordingStorageSubject;
    let storage: RecordingStorage;

    beforeEach(async () => {
      subject = await make();
      storage = subject.storage;
    });
    afterEach(() => subject.close?.());

    const read = async (workspaceId: string, callId: string) => {
      const found = await storage.open(workspaceId, callId);
      return found ? { size: found.size, text: (await readAll(found.stream())).toString() } : null;
    };

    it('serves a recording only once finished, its header rewritten at the start', async () => {
      const writer = await storage.create('ws_1', 'call-1');
      await writer.write(bytes('....'));
      await writer.write(bytes('audio'));
      expect(await storage.open('ws_1', 'call-1')).toBeNull();
      await writer.finish(bytes('HEAD'));
      expect(await read('ws_1', 'call-1')).toEqual({ size: 9, text: 'HEADaudio' });
    });

    it('lands writes issued back to back in order', async () => {
      const writer = await storage.create('ws_1', 'call-1');
      const parts = Array.from({ length: 200 }, (_, i) => `${String(i).padStart(3, '0')},`);
      const writes = parts.map((p) => writer.write(bytes(p)));
      await Promise.all(writes);
      await writer.finish(bytes('>'));
      expect((await read('ws_1', 'call-1'))?.text).toBe(`>${parts.join('').slice(1)}`);
    });

    it('discards an aborted recording, and records the call again afterwards', async () => {
      const first = await storage.create('ws_1', 'call-1');
      await first.write(bytes('lost'));
      await first.abort();
      await first.abort();
      expect(await storage.open('ws_1', 'call-1')).toBeNull();
      await expect(first.write(bytes('more'))).rejects.toThrow();
      await expect(first.finish(bytes('H'))).rejects.toThrow();

      const second = await storage.create('ws_1', 'call-1');
      await second.write(bytes('_kept'));
      await second.finish(bytes('H'));
      expect((await read('ws_1', 'call-1'))?.text).toBe('Hkept');
    });

    it('replaces an earlier recording of the call when a new one finishes, not before', async () => {
      const first = await storage.create('ws_1', 'call-1');
      await first.write(bytes('_one'));
      await first.finish(bytes('1'));
      const second = await storage.create('ws_1', 'call-1');
      await second.write(bytes('_two!'));
      expect((await read('ws_1', 'call-1'))?.text).toBe('1one');
      await second.finish(bytes('2'));
      expect((await read('ws_1', 'call-1'))?.text).toBe('2two!');
      await expect(second.write(bytes('late'))).rejects.toThrow();
    });

    it('keeps workspaces apart and records several calls at once', async () => {
      const [a, b, c] = await Promise.all([
        storage.create('ws_1', 'call-1'),
        storage.create('ws_2', 'call-1'),
        storage.create('ws_1', 'call-2'),
      ]);
      await Promise.all([a!.write(bytes('_a')), b!.write(bytes('_b')), c!.write(bytes('_c'))]);
      await Promise.all([a!.finish(bytes('A')), b!.finish(bytes('B')), c!.finish(bytes('C'))]);
      expect((await read('ws_1', 'call-1'))?.text).toBe('Aa');
      expect((await read('ws_2', 'call-1'))?.text).toBe('Bb');
      expect((await read('ws_1', 'call-2'))?.text).toBe('Cc');
      expect(await storage.remove('ws_2', 'call-2')).toBe(false);
      expect(await storage.remove('ws_2', 'call-1')).toBe(true);
      expect((await read('ws_1', 'call-1'))?.text).toBe('Aa');
    });

    it('removes a recording once', async () => {
      const writer = await storage.create('ws_1', 'call-1');
      await writer.write(bytes('_x'));
      await writer.finish(bytes('H'));
      expect(await storage.remove('ws_1', 'call-1')).toBe(true);
      expect(await storage.open('ws_1', 'call-1')).toBeNull();
      expect(await storage.remove('ws_1', 'call-1')).toBe(false);
    });

    it('streams a byte range', async () => {
      const writer = await storage.create('ws_1', 'call-1');
      await writer.write(bytes('_123456789'));
      await writer.finish(bytes('0'));
      const found = await storage.open('ws_1', 'call-1');
      expect(found?.size).toBe(10);
      expect((await readAll(found!.stream({ start: 2, end: 5 }))).toString()).toBe('2345');
      expect((await readAll(found!.stream({ start: 7 }))).toString()).toBe('789');
    });

    it('keeps what an unfinished writer left, as its seal says, and only once', async () => {
      const writer = await storage.create('ws_1', 'call-1');
      await writer.write(bytes('....'));
      await writer.write(bytes('audio!'));
      // Its process died: the writer is never finished. What was written, less an odd tail:
      const seals: number[] = [];
      const kept = await storage.recover('ws_1', 'call-1', (written) => {
        seals.push(written);
        return { bytes: written - 1, header: bytes('HEAD') };
      });
      expect(seals).toEqual([10]);
      expect(kept).toBe(9);
      expect(await read('ws_1', 'call-1')).toEqual({ size: 9, text: 'HEADaudio' });
      expect(await storage.recover('ws_1', 'call-1', () => ({ bytes: 4, header: bytes('XXXX') }))).toBeNull();
      expect((await read('ws_1', 'call-1'))?.text).toBe('HEADaudio');
    });

    it('lists the calls whose recordings are unfinished', async () => {
      expect(await storage.unfinished()).toEqual([]);
      const a = await storage.create('ws_1', 'call-1');
      const b = await storage.create('ws_2', 'call-2');
      const c = await storage.create('ws_2', 'call-3');
      await Promise.all([a.write(bytes('_a')), b.write(bytes('_b')), c.write(bytes('_c'))]);
      await b.finish(bytes('B'));
      await c.abort();
      expect(await storage.unfinished()).toEqual([{ workspaceId: 'ws_1', callId: 'call-1' }]);
      await storage.recover('ws_1', 'call-1', (n) => ({ bytes: n, header: bytes('A') }));
      expect(await storage.unfinished()).toEqual([]);
    });

    it('recovers nothing where nothing was left, where the seal keeps nothing, or over a finished one', async () => {
      const seal = () => ({ bytes: 3, header: bytes('H') });
      expect(await storage.recover('ws_1', 'none', seal)).toBeNull();
      expect(await storage.recover('../x', 'call-1', seal)).toBeNull();

      const empty = await storage.create('ws_1', 'call-2');
      await empty.write(bytes('..'));
      expect(await storage.recover('ws_1', 'call-2', () => null)).toBeNull();
      expect(await storage.open('ws_1', 'call-2')).toBeNull();

      const done = await storage.create('ws_1', 'call-3');
      await done.write(bytes('_kept'));
      await done.finish(bytes('H'));
      const again = await storage.create('ws_1', 'call-3');
      await again.write(bytes('_lost'));
      expect(await storage.recover('ws_1', 'call-3', seal)).toBeNull();
      expect((await read('ws_1', 'call-3'))?.text).toBe('Hkept');
    });

    it('refuses ids that could name anything but a recording in its workspace', async () => {
      const bad = ['', '.', '..', '../x', 'a/b', 'a\\b', 'a.wav', 'a b', 'x'.repeat(129), 'é'];
      for (const id of bad) {
        await expect(storage.create(id, 'call-1')).rejects.toMatchObject({ code: 'invalid_input' });
        await expect(storage.create('ws_1', id)).rejects.toMatchObject({ code: 'invalid_input' });
        expect(await storage.open(id, 'call-1')).toBeNull();
        expect(await storage.open('ws_1', id)).toBeNull();
        expect(await storage.remove('ws_1', id)).toBe(false);
      }
    });
  });
}
