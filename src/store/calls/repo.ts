import type { Clock } from '../../core/index.ts';
import type { Db, DialectName } from '../database.ts';
import type { RepoContext, Transact } from '../repo-context.ts';
import { callAdmission } from './admission.ts';
import { callCreation } from './create.ts';
import { callQueries } from './list.ts';
import { callQueue } from './queue.ts';
import { callRelease } from './release.ts';
import { callMoves } from './status.ts';
import { callGroupMoves } from './update-many.ts';

// The calls repository, composed of its parts over one shared context.
//
// The status rules (which moves are allowed) belong to src/calls; this repository only applies a
// move when the row is still in one of the statuses the caller allows (a compare and set), and
// keeps the slot count exact: `admit` and `createAdmitted` take slots under the workspace's slot
// lock, `releaseSlots` gives slots back at hang-up and hands each to a waiting call (never raising
// the count, so without the lock), and a call's last move releases its slot if it still holds one.

export function callsRepo(db: Db, clock: Clock, dialect: DialectName, transact: Transact = (fn) => fn(db)) {
  const ctx: RepoContext = { db, clock, dialect, transact };
  return {
    ...callCreation(ctx),
    ...callQueries(ctx),
    ...callMoves(ctx),
    ...callGroupMoves(ctx),
    ...callAdmission(ctx),
    ...callRelease(ctx),
    ...callQueue(ctx),
  };
}

export type CallsRepo = ReturnType<typeof callsRepo>;
