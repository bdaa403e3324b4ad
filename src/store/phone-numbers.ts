import type { Selectable } from 'kysely';
import { newId, slugOf, type Clock } from '../core/index.ts';
import type { Db } from './database.ts';
import { fromJson, toJson } from './json.ts';
import { precompiled } from './precompiled.ts';
import { bumpAgentsVersion } from './workspaces.ts';
import type { Page, PhoneNumber } from './records.ts';
import type { PhoneNumberTable } from './schema.ts';

/** A number with the details the published record shows (migration 015). */
export interface NumberRecord extends PhoneNumber {
  /** A human-readable name ('' when none). */
  friendlyName: string;
  /** The published provider name it was imported with (`twilio`, `zoom`...), or null. */
  providerName: string | null;
}

function toPhoneNumber(row: Selectable<PhoneNumberTable>): NumberRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    number: row.number,
    slug: row.slug,
    provider: row.provider,
    sip: fromJson<Record<string, unknown>>(row.sip),
    defaultAgentId: row.default_agent_id,
    friendlyName: row.friendly_name,
    providerName: row.provider_name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewPhoneNumber {
  /** E.164, already normalized. */
  number: string;
  provider: string;
  sip?: Record<string, unknown> | null;
  friendlyName?: string;
  providerName?: string | null;
}

/** Fields a number update may set; absent ones are kept. */
export interface PhoneNumberPatch {
  provider?: string;
  sip?: Record<string, unknown> | null;
  friendlyName?: string;
  providerName?: string | null;
}

export interface NumberListFilter {
  /** true: only numbers attached to some agent; false: only numbers attached to none. */
  attached?: boolean;
}

// Changes to attachments (attach, detach, delete) bump the workspace's agents version, as agent
// reads show the attached numbers.
/** Attached numbers with their agent, in attachment order. */
function attachedNumbers(q: Db, workspaceId: string) {
  return q
    .selectFrom('agent_phone_numbers as a')
    .innerJoin('phone_numbers as p', 'p.id', 'a.phone_number_id')
    .selectAll('p')
    .select('a.agent_id')
    .where('a.workspace_id', '=', workspaceId)
    .orderBy('a.created_at')
    .orderBy('p.seq');
}

export function phoneNumbersRepo(db: Db, clock: Clock) {
  // Numbers of one agent: part of every agent read, so built once (see precompiled.ts).
  const ofOneAgent = precompiled(db, (q, workspaceId: string, agentId: string) =>
    attachedNumbers(q, workspaceId).where('a.agent_id', '=', agentId),
  );

  return {
    /** Imports a number; returns null when the workspace already has it. */
    async create(workspaceId: string, input: NewPhoneNumber): Promise<NumberRecord | null> {
      const now = clock.now();
      const row = await db
        .insertInto('phone_numbers')
        .values({
          id: newId(),
          workspace_id: workspaceId,
          number: input.number,
          slug: slugOf(input.number),
          provider: input.provider,
          sip: toJson(input.sip ?? null),
          default_agent_id: null,
          friendly_name: input.friendlyName ?? '',
          provider_name: input.providerName ?? null,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(['workspace_id', 'number']).doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toPhoneNumber(row) : null;
    },

    async getBySlug(workspaceId: string, slug: string): Promise<NumberRecord | null> {
      const row = await db
        .selectFrom('phone_numbers')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('slug', '=', slug)
        .executeTakeFirst();
      return row ? toPhoneNumber(row) : null;
    },

    /** The workspace's numbers among `slugs` (unknown ones are simply absent from the result). */
    async findBySlugs(workspaceId: string, slugs: string[]): Promise<NumberRecord[]> {
      if (slugs.length === 0) return [];
      const rows = await db
        .selectFrom('phone_numbers')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('slug', 'in', slugs)
        .execute();
      return rows.map(toPhoneNumber);
    },

    /** Numbers equal to `number` (E.164) of `provider`, in every workspace (a carrier's inbound lookup). */
    async findEverywhere(number: string, provider: string): Promise<NumberRecord[]> {
      const rows = await db
        .selectFrom('phone_numbers')
        .selectAll()
        .where('number', '=', number)
        .where('provider', '=', provider)
        .orderBy('created_at')
        .execute();
      return rows.map(toPhoneNumber);
    },

    /** Every number of `provider`, in every workspace, oldest first (at most `limit`). */
    async listEverywhere(provider: string, limit = 10_000): Promise<NumberRecord[]> {
      const rows = await db
        .selectFrom('phone_numbers')
        .selectAll()
        .where('provider', '=', provider)
        .orderBy('created_at')
        .limit(limit)
        .execute();
      return rows.map(toPhoneNumber);
    },

    /** Newest first. */
    async list(
      workspaceId: string,
      limit: number,
      offset: number,
      filter: NumberListFilter = {},
    ): Promise<Page<NumberRecord>> {
      let base = db.selectFrom('phone_numbers').where('workspace_id', '=', workspaceId);
      const { attached } = filter;
      if (attached !== undefined) {
        base = base.where((eb) => {
          const anyAgent = eb.exists(
            eb
              .selectFrom('agent_phone_numbers as a')
              .select('a.agent_id')
              .whereRef('a.phone_number_id', '=', 'phone_numbers.id'),
          );
          return attached ? anyAgent : eb.not(anyAgent);
        });
      }
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('seq', 'desc').limit(limit).offset(offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toPhoneNumber), total: Number(count.n) };
    },

    /** Updates the given fields; null when the workspace has no such number. */
    async update(workspaceId: string, id: string, patch: PhoneNumberPatch): Promise<NumberRecord | null> {
      const row = await db
        .updateTable('phone_numbers')
        .set({
          ...(patch.provider !== undefined ? { provider: patch.provider } : {}),
          ...(patch.sip !== undefined ? { sip: toJson(patch.sip) } : {}),
          ...(patch.friendlyName !== undefined ? { friendly_name: patch.friendlyName } : {}),
          ...(patch.providerName !== undefined ? { provider_name: patch.providerName } : {}),
          updated_at: clock.now(),
        })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toPhoneNumber(row) : null;
    },

    /** Deletes the number and detaches it from every agent. */
    async delete(workspaceId: string, slug: string): Promise<boolean> {
      const found = await this.getBySlug(workspaceId, slug);
      if (!found) return false;
      await bumpAgentsVersion(db, workspaceId);
      await db.deleteFrom('agent_phone_numbers').where('phone_number_id', '=', found.id).execute();
      await db.deleteFrom('phone_numbers').where('id', '=', found.id).execute();
      return true;
    },

    /** Attaches numbers to an agent; attaching one already attached changes nothing. */
    async attach(workspaceId: string, agentId: string, numberIds: string[]): Promise<void> {
      if (numberIds.length === 0) return;
      await bumpAgentsVersion(db, workspaceId);
      const now = clock.now();
      await db
        .insertInto('agent_phone_numbers')
        .values(
          [...new Set(numberIds)].map((id) => ({
            workspace_id: workspaceId,
            agent_id: agentId,
            phone_number_id: id,
            created_at: now,
          })),
        )
        .onConflict((oc) => oc.columns(['agent_id', 'phone_number_id']).doNothing())
        .execute();
    },

    /** Detaches one number from an agent; false when it was not attached. */
    async detach(workspaceId: string, agentId: string, numberId: string): Promise<boolean> {
      await bumpAgentsVersion(db, workspaceId);
      const result = await db
        .deleteFrom('agent_phone_numbers')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', agentId)
        .where('phone_number_id', '=', numberId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Numbers attached to each of the given agents, in the order they were attached. */
    async attachedTo(workspaceId: string, agentIds: string[]): Promise<Map<string, NumberRecord[]>> {
      const byAgent = new Map<string, NumberRecord[]>(agentIds.map((id) => [id, []]));
      if (agentIds.length === 0) return byAgent;
      const [only] = agentIds;
      const rows =
        agentIds.length === 1 && only !== undefined
          ? await ofOneAgent(workspaceId, only)
          : await attachedNumbers(db, workspaceId).where('a.agent_id', 'in', agentIds).execute();
      for (const row of rows) byAgent.get(row.agent_id)?.push(toPhoneNumber(row));
      return byAgent;
    },

    /** Agents each number is attached to. */
    async agentsOf(workspaceId: string, numberIds: string[]): Promise<Map<string, string[]>> {
      const byNumber = new Map<string, string[]>(numberIds.map((id) => [id, []]));
      if (numberIds.length === 0) return byNumber;
      const rows = await db
        .selectFrom('agent_phone_numbers')
        .select(['phone_number_id', 'agent_id'])
        .where('workspace_id', '=', workspaceId)
        .where('phone_number_id', 'in', numberIds)
        .orderBy('created_at')
        .execute();
      for (const row of rows) byNumber.get(row.phone_number_id)?.push(row.agent_id);
      return byNumber;
    },
  };
}

export type PhoneNumbersRepo = ReturnType<typeof phoneNumbersRepo>;
