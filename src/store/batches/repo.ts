import type { Clock } from '../../core/index.ts';
import type { Db, DialectName } from '../database.ts';
import type { RepoContext, Transact } from '../repo-context.ts';
import { batchClaims } from './claims.ts';
import { batchCounters } from './counters.ts';
import { batchUploads } from './create.ts';
import { batchDispatch } from './dispatch.ts';
import { batchQueries } from './list.ts';
import { batchMoves } from './status.ts';
import { MAX_TASKS_PER_BATCH } from './types.ts';

// The batches repository, composed of its parts over one shared context.
//
// Campaigns (batch calls) and their recipients. Counters live in the batch row and change in the
// same transaction as the recipients they count. A recipient moves queued -> claimed (taken by a
// dialer) -> dispatched (its call row exists) | failed | canceled; the call row and the move to
// `dispatched` commit together, so a claimed recipient without a call was provably not dialed.

export function batchesRepo(
  db: Db,
  clock: Clock,
  dialect: DialectName,
  transact: Transact = (fn) => fn(db),
  maxTasks = MAX_TASKS_PER_BATCH,
) {
  const ctx: RepoContext = { db, clock, dialect, transact };
  return {
    ...batchUploads(ctx, maxTasks),
    ...batchQueries(ctx),
    ...batchMoves(ctx),
    ...batchClaims(ctx),
    ...batchDispatch(ctx),
    ...batchCounters(ctx),
  };
}

export type BatchesRepo = ReturnType<typeof batchesRepo>;
