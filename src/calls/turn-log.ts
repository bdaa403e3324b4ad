import type { Clock, Logger } from '../core/index.ts';
import type { CallTurn, CallTurnsWrite, Store } from '../store/index.ts';

// What was said is durable as it happens (DESIGN.md section 5, docs/durability.md): each running
// call tells its log the transcript's completed turns; the log writes what changed, for all the
// calls of this node together, off the media path. `update` only copies and marks: the write
// starts on a later tick, and writes asked for while one is in flight go together in the next
// one. A failed write is logged and retried (backing off) with whatever is newest by then; the
// call goes on. A node that dies leaves at most the turn in progress and the last write's flight
// unwritten; the node that takes its calls over reads the rest (liveness.ts).

/** A turn as the conversation keeps it. */
export interface TurnLike {
  speaker: 'agent' | 'user';
  text: string;
  at: number;
  interrupted?: boolean;
}

export interface CallTurnLog {
  /** The call's transcript now; its first `settled` turns are complete and are to be kept. */
  update(turns: readonly TurnLike[], settled: number): void;
  /**
   * Stops keeping the call's turns (its record is about to hold the whole transcript): a write
   * not started is dropped, one in flight is waited for.
   */
  close(): Promise<void>;
}

export interface TurnLog {
  open(workspaceId: string, callId: string): CallTurnLog;
  /** Writes what is pending now (tests, shutdown). */
  flush(): Promise<void>;
}

export interface TurnLogOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** First wait after a failed write; doubles up to `maxRetryMs` (defaults 500 ms and 30 s). */
  retryMs?: number;
  maxRetryMs?: number;
}

interface Entry {
  workspaceId: string;
  callId: string;
  /** The turns to keep (copies). */
  wanted: CallTurn[];
  /** The turns the store holds. */
  stored: CallTurn[];
  closed: boolean;
}

const same = (a: CallTurn | undefined, b: CallTurn | undefined) =>
  !!a &&
  !!b &&
  a.speaker === b.speaker &&
  a.text === b.text &&
  a.at === b.at &&
  a.interrupted === b.interrupted;

/** The write that brings the store from `stored` to `wanted`, or null when they match. */
function writeOf(entry: Entry): { write: CallTurnsWrite; wanted: CallTurn[] } | null {
  const { wanted, stored } = entry;
  let from = 0;
  while (from < wanted.length && same(wanted[from], stored[from])) from += 1;
  if (from === wanted.length && wanted.length === stored.length) return null;
  return {
    write: { workspaceId: entry.workspaceId, callId: entry.callId, from, turns: wanted.slice(from) },
    wanted,
  };
}

export function createTurnLog(options: TurnLogOptions): TurnLog {
  const { store, clock, logger } = options;
  const retryMs = options.retryMs ?? 500;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  const dirty = new Set<Entry>();
  let inFlight: Promise<void> | null = null;
  let scheduled = false;
  let backoff = 0;
  let failures = 0;

  /** One write of every dirty call; on failure they stay dirty. */
  async function writeDirty(): Promise<boolean> {
    const planned: { entry: Entry; wanted: CallTurn[] }[] = [];
    const writes: CallTurnsWrite[] = [];
    for (const entry of dirty) {
      dirty.delete(entry);
      if (entry.closed) continue;
      const w = writeOf(entry);
      if (!w) continue;
      planned.push({ entry, wanted: w.wanted });
      writes.push(w.write);
    }
    if (writes.length === 0) return true;
    try {
      await store.callTurns.write(writes);
      for (const { entry, wanted } of planned) entry.stored = wanted;
      return true;
    } catch (err) {
      failures += 1;
      // Logged without the text: ids and counts only.
      logger.warn(
        { err, calls: writes.length, call_ids: writes.slice(0, 10).map((w) => w.callId), failures },
        'writing transcript turns failed; retrying',
      );
      for (const { entry } of planned) if (!entry.closed) dirty.add(entry);
      return false;
    }
  }

  async function run(): Promise<void> {
    // Off the caller's tick: `update` returns at once, and turns of calls nearby join this write.
    await null;
    while (dirty.size > 0) {
      const current = writeDirty();
      inFlight = current.then(() => undefined);
      const ok = await current;
      inFlight = null;
      if (ok) {
        backoff = 0;
        continue;
      }
      backoff = Math.min(maxRetryMs, backoff === 0 ? retryMs : backoff * 2);
      await clock.sleep(backoff).catch(() => undefined);
    }
  }

  let running: Promise<void> | null = null;
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    running = run().finally(() => {
      scheduled = false;
      running = null;
      if (dirty.size > 0) schedule();
    });
  }

  return {
    open(workspaceId, callId) {
      const entry: Entry = { workspaceId, callId, wanted: [], stored: [], closed: false };
      return {
        update(turns, settled) {
          if (entry.closed) return;
          const n = Math.max(0, Math.min(settled, turns.length));
          // Copies, so later changes to the conversation's turns are seen as changes.
          entry.wanted = turns.slice(0, n).map((t) => ({
            speaker: t.speaker,
            text: t.text,
            at: t.at,
            interrupted: t.interrupted === true,
          }));
          dirty.add(entry);
          schedule();
        },
        async close() {
          entry.closed = true;
          dirty.delete(entry);
          await inFlight?.catch(() => undefined);
        },
      };
    },
    async flush() {
      while (running) await running;
    },
  };
}
