import type { Db, DialectName } from '../database.ts';
import { toBatch } from './rows.ts';
import type { Batch } from './types.ts';

// One batch of a workspace read on a given handle: as it is, or locked for the transaction's writes.

const batchOf = (trx: Db, workspaceId: string, id: string) =>
  trx.selectFrom('batches').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);

export async function getBatch(trx: Db, workspaceId: string, id: string): Promise<Batch | null> {
  const row = await batchOf(trx, workspaceId, id).executeTakeFirst();
  return row ? toBatch(row) : null;
}

/** The batch, its row locked to the end of the transaction (PostgreSQL; SQLite: its write lock). */
export async function lockBatch(
  dialect: DialectName,
  trx: Db,
  workspaceId: string,
  id: string,
): Promise<Batch | null> {
  let q = batchOf(trx, workspaceId, id);
  if (dialect === 'postgres') q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? toBatch(row) : null;
}
