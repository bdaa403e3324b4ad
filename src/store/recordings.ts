import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { invalidInput } from '../core/index.ts';

// Call recordings (WAV files), one per call, by workspace. A recording is written as the call
// goes (appended chunks), its header rewritten at the end, and only then does it appear: the
// file implementation writes to a temporary name and renames at `finish`, so a half-written
// recording is never served. A writer whose process died leaves its temporary file: `recover`
// makes it the call's recording (docs/durability.md). `RecordingWriter` is the shape of voice's
// RecordingSink.

export interface RecordingWriter {
  /** Appends bytes; writes may be issued back to back, they land in order. */
  write(chunk: Uint8Array): Promise<void>;
  /** Overwrites the first bytes with `header` and makes the recording visible. */
  finish(header: Uint8Array): Promise<void>;
  /** Discards what was written; idempotent. */
  abort(): Promise<void>;
}

export interface StoredRecording {
  size: number;
  /** The bytes from `start` to `end` (inclusive; default: all), for HTTP range requests too. */
  stream(range?: { start?: number; end?: number }): NodeJS.ReadableStream;
}

export interface RecordingStorage {
  /** A writer for the call's recording; a finished one replaces an earlier recording. */
  create(workspaceId: string, callId: string): Promise<RecordingWriter>;
  /** The call's finished recording, or null. */
  open(workspaceId: string, callId: string): Promise<StoredRecording | null>;
  /** Deletes the call's recording; false when there was none. */
  remove(workspaceId: string, callId: string): Promise<boolean>;
  /**
   * Keeps what a writer left unfinished (its process died mid-call) as the call's recording:
   * `seal`, given how many bytes were written, answers how many to keep and the header to write
   * over the first bytes, or null to keep nothing. Answers the size kept, or null when there was
   * nothing to keep or the call already has a finished recording. Only for a call no live
   * process records.
   */
  recover(workspaceId: string, callId: string, seal: RecordingSeal): Promise<number | null>;
  /** The calls whose recordings a writer left unfinished (being written, or left by a death). */
  unfinished(): Promise<{ workspaceId: string; callId: string }[]>;
}

/** How a recording left unfinished is made whole: the bytes to keep and its header, or null. */
export type RecordingSeal = (writtenBytes: number) => { bytes: number; header: Uint8Array } | null;

const ID = /^[A-Za-z0-9_-]{1,128}$/;
/** A writer's temporary file: `<callId>.wav.<random>.part`. */
const PART = /^([A-Za-z0-9_-]{1,128})\.wav\.[0-9a-f]+\.part$/;

/** Whether both ids may name a recording (letters, digits, `_` and `-` only: no path tricks). */
export const isRecordingKey = (workspaceId: string, callId: string): boolean =>
  ID.test(workspaceId) && ID.test(callId);

export function checkRecordingKey(workspaceId: string, callId: string): void {
  if (!ID.test(workspaceId)) throw invalidInput('invalid workspace id for a recording', ['workspace_id']);
  if (!ID.test(callId)) throw invalidInput('invalid call id for a recording', ['call_id']);
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/** Recordings as files: `<dir>/<workspaceId>/<callId>.wav`. */
export function createFileRecordings(dir: string): RecordingStorage {
  const pathOf = (workspaceId: string, callId: string) => join(dir, workspaceId, `${callId}.wav`);

  return {
    async create(workspaceId, callId) {
      checkRecordingKey(workspaceId, callId);
      await mkdir(join(dir, workspaceId), { recursive: true });
      const final = pathOf(workspaceId, callId);
      // Beside the final name (same file system, so the rename is atomic); never served.
      const temp = `${final}.${randomBytes(6).toString('hex')}.part`;
      const handle = await open(temp, 'wx');
      return fileWriter(handle, temp, final);
    },

    async open(workspaceId, callId) {
      if (!isRecordingKey(workspaceId, callId)) return null;
      const path = pathOf(workspaceId, callId);
      try {
        const { size } = await stat(path);
        return { size, stream: (range) => createReadStream(path, { ...range }) };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async recover(workspaceId, callId, seal) {
      if (!isRecordingKey(workspaceId, callId)) return null;
      const folder = join(dir, workspaceId);
      let names: string[];
      try {
        names = await readdir(folder);
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
      const prefix = `${callId}.wav.`;
      const parts = names
        .filter((n) => n.startsWith(prefix) && n.endsWith('.part'))
        .map((n) => join(folder, n));
      if (parts.length === 0) return null;
      const sizes = await Promise.all(parts.map(async (p) => (await stat(p)).size));
      // The longest part: a call recorded again (a new writer) leaves a later, longer one.
      const best = sizes.indexOf(Math.max(...sizes));
      const part = parts[best]!;
      const exists = await stat(pathOf(workspaceId, callId)).then(
        () => true,
        (err: unknown) => (isMissing(err) ? false : Promise.reject(err)),
      );
      const sealed = exists ? null : seal(sizes[best]!);
      let kept: number | null = null;
      if (sealed && sealed.bytes >= sealed.header.length) {
        const handle = await open(part, 'r+');
        try {
          await handle.truncate(sealed.bytes);
          await handle.write(sealed.header, 0, sealed.header.length, 0);
          await handle.datasync();
        } finally {
          await handle.close();
        }
        await rename(part, pathOf(workspaceId, callId));
        kept = sealed.bytes;
      }
      for (const p of parts) if (kept === null || p !== part) await unlink(p).catch(() => undefined);
      return kept;
    },

    async unfinished() {
      const found: { workspaceId: string; callId: string }[] = [];
      let workspaces: string[];
      try {
        workspaces = await readdir(dir);
      } catch (err) {
        if (isMissing(err)) return found;
        throw err;
      }
      for (const workspaceId of workspaces) {
        if (!ID.test(workspaceId)) continue;
        const names = await readdir(join(dir, workspaceId)).catch(() => [] as string[]);
        for (const name of names) {
          const part = PART.exec(name);
          if (part && !found.some((f) => f.workspaceId === workspaceId && f.callId === part[1]))
            found.push({ workspaceId, callId: part[1]! });
        }
      }
      return found;
    },

    async remove(workspaceId, callId) {
      if (!isRecordingKey(workspaceId, callId)) return false;
      try {
        await unlink(pathOf(workspaceId, callId));
        return true;
      } catch (err) {
        if (isMissing(err)) return false;
        throw err;
      }
    },
  };
}

function fileWriter(handle: FileHandle, temp: string, final: string): RecordingWriter {
  let state: 'open' | 'finished' | 'aborted' = 'open';
  let position = 0;
  // Writes run one after another even when issued back to back.
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = tail.then(fn);
    tail = next.catch(() => undefined);
    return next;
  };
  const closed = () => new Error(`the recording writer is ${state}`);

  return {
    write(chunk) {
      if (state !== 'open') return Promise.reject(closed());
      return serial(async () => {
        let done = 0;
        while (done < chunk.length) {
          const { bytesWritten } = await handle.write(chunk, done, chunk.length - done, position);
          done += bytesWritten;
          position += bytesWritten;
        }
      });
    },

    finish(header) {
      if (state !== 'open') return Promise.reject(closed());
      state = 'finished';
      return serial(async () => {
        try {
          await handle.write(header, 0, header.length, 0);
          // On disk before it is visible: a crash never leaves a renamed but empty file.
          await handle.datasync();
          await handle.close();
          await rename(temp, final);
        } catch (err) {
          await handle.close().catch(() => undefined);
          await unlink(temp).catch(() => undefined);
          throw err;
        }
      });
    },

    abort() {
      if (state !== 'open') return tail.then(() => undefined);
      state = 'aborted';
      return serial(async () => {
        await handle.close().catch(() => undefined);
        await unlink(temp).catch((err: unknown) => {
          if (!isMissing(err)) throw err;
        });
      });
    },
  };
}
