import { newId } from '../../core/index.ts';
import type { Db } from '../database.ts';
import { toJson } from '../json.ts';
import type { RepoContext } from '../repo-context.ts';
import { getBatch, lockBatch } from './lookup.ts';
import { toBatch } from './rows.ts';
import type { AppendResult, Batch, NewBatch, NewTask } from './types.ts';

// Creating a batch with its recipients, and adding recipients to an open one (the uploads).

/** Columns one recipient row binds in `insertTasks`. */
const TASK_COLUMNS = 13;

export function batchUploads(ctx: RepoContext, maxTasks: number) {
  const { clock, dialect, transact } = ctx;
  // Bound parameters per statement: SQLite allows 32,766, PostgreSQL 65,535; rows per INSERT
  // follow from the columns a row binds (13 today: 2,520 rows on SQLite, 5,041 on PostgreSQL).
  const maxParameters = dialect === 'postgres' ? 65_535 : 32_766;

  /** Appends the recipients after the batch's last position, and counts them on its row. */
  async function insertTasks(trx: Db, batch: Batch, tasks: readonly NewTask[], now: number) {
    const chunk = Math.floor(maxParameters / TASK_COLUMNS);
    for (let start = 0; start < tasks.length; start += chunk) {
      const rows = tasks.slice(start, start + chunk).map((t, i) => ({
        id: newId(),
        batch_id: batch.id,
        workspace_id: batch.workspaceId,
        position: batch.totalTaskCount + start + i,
        client_id: t.clientId ?? null,
        to_phone_number: t.toPhoneNumber,
        lead_name: t.leadName ?? null,
        lead_email: t.leadEmail ?? null,
        custom_variables: toJson(t.customVariables ?? null),
        override_model_id: t.overrideModelId ?? null,
        status: 'queued',
        created_at: now,
        updated_at: now,
      }));
      await trx.insertInto('batch_tasks').values(rows).execute();
    }
    await trx
      .updateTable('batches')
      .set((eb) => ({
        total_task_count: eb('total_task_count', '+', tasks.length),
        pending_count: eb('pending_count', '+', tasks.length),
        updated_at: now,
      }))
      .where('id', '=', batch.id)
      .execute();
  }

  return {
    /** Recipients one batch may hold. */
    maxTasks,

    async create(workspaceId: string, input: NewBatch, tasks: readonly NewTask[]): Promise<Batch> {
      return transact(async (trx) => {
        const now = clock.now();
        const row = await trx
          .insertInto('batches')
          .values({
            id: newId(),
            workspace_id: workspaceId,
            agent_id: input.agentId,
            name: input.name,
            status: 'scheduled',
            from_phone_number: input.fromPhoneNumber,
            from_provider: input.fromProvider,
            trigger_at: input.triggerAt,
            reserved_concurrency: input.reservedConcurrency,
            call_time_window: toJson(input.callTimeWindow ?? null),
            created_at: now,
            updated_at: now,
            expires_at: now + input.lifetimeMs,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const batch = toBatch(row);
        await insertTasks(trx, batch, tasks, now);
        return (await getBatch(trx, workspaceId, batch.id))!;
      });
    },

    /** Adds recipients to an open batch, all or none. */
    async append(workspaceId: string, id: string, tasks: readonly NewTask[]): Promise<AppendResult> {
      return transact(async (trx) => {
        const batch = await lockBatch(dialect, trx, workspaceId, id);
        if (!batch) return { ok: false, reason: 'not_found' };
        if (batch.status === 'completed' || batch.status === 'canceled')
          return { ok: false, reason: 'closed', batch };
        if (batch.totalTaskCount + tasks.length > maxTasks) return { ok: false, reason: 'too_many', batch };
        const now = clock.now();
        await insertTasks(trx, batch, tasks, now);
        return { ok: true, batch: (await getBatch(trx, workspaceId, id))! };
      });
    },
  };
}
