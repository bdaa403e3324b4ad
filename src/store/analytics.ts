import { sql } from 'kysely';
import type { Db, DialectName } from './database.ts';
import { DAY_MS } from '../core/index.ts';

// Call analytics (`GET /v2/analytics`): counts, minutes and outcomes of a workspace's calls over a
// range of `created_at`, computed by the database with GROUP BY. Every query reads the range and
// the period of the same length just before it (for the "percentage change" figures) in one
// pass, telling them apart with a `day` column: the call's UTC day (ms / 86,400,000) in the
// range, or -1 in the previous period. What comes back is a few rows per day, status and end
// reason (or per agent, or per action), never the calls themselves, except the few most recent.
//
// The JSON columns are read with each dialect's own operators: `analysis.user_sentiment` and
// `analysis.goal` equal to JSON `true`, and the keys of `state.actions.executed_actions` (one key
// per action that ran in the call).

/** How many of the range's most recent calls the report lists. */
export const RECENT_CALLS = 20;

export interface AnalyticsFilter {
  /** First and last moment of the range, in ms (both inclusive). */
  from: number;
  to: number;
  agentId?: string;
  /** The call's own type. */
  callType?: 'outbound' | 'inbound' | 'web';
}

/** Calls of one day (null: the previous period), status and end reason. */
export interface CallGroup {
  /** UTC day number (ms / DAY_MS), or null for the previous period. */
  day: number | null;
  status: string;
  endCallReason: string | null;
  calls: number;
  /** Sum of the durations (seconds). */
  seconds: number;
  /** Calls with a duration above zero (answered). */
  answered: number;
  /** Calls whose analysis has `user_sentiment: true`. */
  positive: number;
  /** Calls whose analysis has a `user_sentiment`. */
  judged: number;
}

/** Calls of one agent in the range, or in the previous period. */
export interface AgentGroup {
  agentId: string;
  /** null when the agent was deleted. */
  agentName: string | null;
  previous: boolean;
  calls: number;
  seconds: number;
  /** Calls whose analysis has `goal: true`. */
  successes: number;
}

/** Calls that ran one action, per day (null: the previous period). */
export interface ActionGroup {
  day: number | null;
  name: string;
  calls: number;
}

export interface RecentCall {
  id: string;
  agentId: string;
  agentName: string | null;
  status: string;
  type: string;
  phoneFrom: string;
  phoneTo: string;
  durationSeconds: number | null;
  createdAt: number;
}

export interface AnalyticsData {
  /** The previous period's first moment (the range's length before `from`). */
  previousFrom: number;
  calls: CallGroup[];
  agents: AgentGroup[];
  actions: ActionGroup[];
  /** The range's most recent calls, newest first. */
  recent: RecentCall[];
}

const n = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

export function analyticsRepo(db: Db, dialect: DialectName) {
  const pg = dialect === 'postgres';

  /** 1 when the JSON column `analysis` has `field` equal to true, else 0. */
  const analysisTrue = (field: 'user_sentiment' | 'goal') =>
    pg
      ? sql<number>`case when analysis -> ${sql.lit(field)} = 'true'::jsonb then 1 else 0 end`
      : sql<number>`case when json_type(analysis, ${`$.${field}`}) = 'true' then 1 else 0 end`;
  const analysisHas = (field: 'user_sentiment') =>
    pg
      ? sql<number>`case when analysis -> ${sql.lit(field)} is not null then 1 else 0 end`
      : sql<number>`case when json_type(analysis, ${`$.${field}`}) is not null then 1 else 0 end`;

  /** The calls of the range and of the period before it, with their `day` (-1: before). */
  function scoped(workspaceId: string, f: AnalyticsFilter, previousFrom: number) {
    let q = db
      .selectFrom('calls')
      .where('workspace_id', '=', workspaceId)
      .where('created_at', '>=', previousFrom)
      .where('created_at', '<=', f.to);
    if (f.agentId !== undefined) q = q.where('agent_id', '=', f.agentId);
    if (f.callType !== undefined) q = q.where('type', '=', f.callType);
    return q;
  }
  const dayOf = (from: number) =>
    sql<number>`case when created_at >= ${from} then created_at / ${sql.lit(DAY_MS)} else -1 end`;
  const dayOrNull = (v: unknown) => (n(v) < 0 ? null : n(v));

  return {
    async calls(workspaceId: string, f: AnalyticsFilter): Promise<AnalyticsData> {
      const previousFrom = f.from - (f.to - f.from + 1);

      const callGroups = db
        .selectFrom(
          scoped(workspaceId, f, previousFrom)
            .select([
              dayOf(f.from).as('day'),
              'status',
              'end_call_reason',
              'duration_seconds',
              analysisTrue('user_sentiment').as('positive'),
              analysisHas('user_sentiment').as('judged'),
            ])
            .as('c'),
        )
        .select((eb) => [
          'c.day',
          'c.status',
          'c.end_call_reason',
          eb.fn.countAll<number>().as('calls'),
          eb.fn.sum<number>(eb.fn.coalesce('c.duration_seconds', sql.lit(0))).as('seconds'),
          eb.fn.sum<number>(sql`case when c.duration_seconds > 0 then 1 else 0 end`).as('answered'),
          eb.fn.sum<number>('c.positive').as('positive'),
          eb.fn.sum<number>('c.judged').as('judged'),
        ])
        .groupBy(['c.day', 'c.status', 'c.end_call_reason'])
        .execute();

      const agentGroups = db
        .selectFrom(
          scoped(workspaceId, f, previousFrom)
            .select([
              'agent_id',
              sql<number>`case when created_at >= ${f.from} then 0 else 1 end`.as('previous'),
              'duration_seconds',
              analysisTrue('goal').as('success'),
            ])
            .as('c'),
        )
        .leftJoin('agents as a', (join) =>
          join.onRef('a.id', '=', 'c.agent_id').on('a.workspace_id', '=', workspaceId),
        )
        .select((eb) => [
          'c.agent_id',
          'a.name',
          'c.previous',
          eb.fn.countAll<number>().as('calls'),
          eb.fn.sum<number>(eb.fn.coalesce('c.duration_seconds', sql.lit(0))).as('seconds'),
          eb.fn.sum<number>('c.success').as('successes'),
        ])
        .groupBy(['c.agent_id', 'a.name', 'c.previous'])
        .execute();

      const withState = scoped(workspaceId, f, previousFrom).select([dayOf(f.from).as('day'), 'state']);
      const actionGroups = pg
        ? sql<{ day: unknown; name: string; calls: unknown }>`
            select c.day, k.name, count(*) as calls
            from (${withState}) as c
            cross join lateral jsonb_object_keys(
              case when jsonb_typeof(c.state -> 'actions' -> 'executed_actions') = 'object'
                then c.state -> 'actions' -> 'executed_actions' else '{}'::jsonb end
            ) as k(name)
            group by c.day, k.name`.execute(db)
        : sql<{ day: unknown; name: string; calls: unknown }>`
            select c.day, je.key as name, count(*) as calls
            from (${withState}) as c, json_each(c.state, '$.actions.executed_actions') as je
            where json_type(c.state, '$.actions.executed_actions') = 'object'
            group by c.day, je.key`.execute(db);

      let recentQuery = db
        .selectFrom('calls as c')
        .leftJoin('agents as a', (join) =>
          join.onRef('a.id', '=', 'c.agent_id').on('a.workspace_id', '=', workspaceId),
        )
        .select([
          'c.id',
          'c.agent_id',
          'a.name',
          'c.status',
          'c.type',
          'c.phone_from',
          'c.phone_to',
          'c.duration_seconds',
          'c.created_at',
        ])
        .where('c.workspace_id', '=', workspaceId)
        .where('c.created_at', '>=', f.from)
        .where('c.created_at', '<=', f.to);
      if (f.agentId !== undefined) recentQuery = recentQuery.where('c.agent_id', '=', f.agentId);
      if (f.callType !== undefined) recentQuery = recentQuery.where('c.type', '=', f.callType);
      const recent = recentQuery
        .orderBy('c.created_at', 'desc')
        .orderBy('c.seq', 'desc')
        .limit(RECENT_CALLS)
        .execute();

      const [calls, agents, actions, recentRows] = await Promise.all([
        callGroups,
        agentGroups,
        actionGroups,
        recent,
      ]);
      return {
        previousFrom,
        calls: calls.map((r) => ({
          day: dayOrNull(r.day),
          status: r.status,
          endCallReason: r.end_call_reason,
          calls: n(r.calls),
          seconds: n(r.seconds),
          answered: n(r.answered),
          positive: n(r.positive),
          judged: n(r.judged),
        })),
        agents: agents.map((r) => ({
          agentId: r.agent_id,
          agentName: r.name ?? null,
          previous: n(r.previous) === 1,
          calls: n(r.calls),
          seconds: n(r.seconds),
          successes: n(r.successes),
        })),
        actions: actions.rows.map((r) => ({ day: dayOrNull(r.day), name: r.name, calls: n(r.calls) })),
        recent: recentRows.map((r) => ({
          id: r.id,
          agentId: r.agent_id,
          agentName: r.name ?? null,
          status: r.status,
          type: r.type,
          phoneFrom: r.phone_from,
          phoneTo: r.phone_to,
          durationSeconds: r.duration_seconds === null ? null : Number(r.duration_seconds),
          createdAt: Number(r.created_at),
        })),
      };
    },
  };
}

export type AnalyticsRepo = ReturnType<typeof analyticsRepo>;
