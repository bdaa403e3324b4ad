import { newId, type Clock } from '../core/index.ts';
import type { Db } from './database.ts';

// The builtin calendar's data: weekly working hours per agent and the bookings made through it.
// Times are integer milliseconds. `book` is atomic: the unique (agent, start) constraint makes a
// second booking of the same slot a no-op, reported as null.

export interface CalendarWorkingHours {
  /** 0 = Sunday … 6 = Saturday. */
  weekday: number;
  startMinute: number;
  endMinute: number;
  timeZone: string;
}

export interface CalendarBooking {
  id: string;
  workspaceId: string;
  agentId: string;
  startMs: number;
  endMs: number;
  name: string;
  email: string;
  createdAt: number;
}

export interface NewCalendarBooking {
  startMs: number;
  endMs: number;
  name: string;
  email: string;
}

type Transact = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

export function calendarRepo(db: Db, clock: Clock, transact: Transact = (fn) => fn(db)) {
  return {
    /** Replaces the agent's working hours. */
    async setWorkingHours(
      workspaceId: string,
      agentId: string,
      hours: CalendarWorkingHours[],
    ): Promise<void> {
      await transact(async (trx) => {
        await trx
          .deleteFrom('calendar_hours')
          .where('workspace_id', '=', workspaceId)
          .where('agent_id', '=', agentId)
          .execute();
        if (hours.length === 0) return;
        await trx
          .insertInto('calendar_hours')
          .values(
            hours.map((h) => ({
              workspace_id: workspaceId,
              agent_id: agentId,
              weekday: h.weekday,
              start_minute: h.startMinute,
              end_minute: h.endMinute,
              time_zone: h.timeZone,
            })),
          )
          .execute();
      });
    },

    async workingHours(workspaceId: string, agentId: string): Promise<CalendarWorkingHours[]> {
      const rows = await db
        .selectFrom('calendar_hours')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', agentId)
        .orderBy('seq')
        .execute();
      return rows.map((r) => ({
        weekday: Number(r.weekday),
        startMinute: Number(r.start_minute),
        endMinute: Number(r.end_minute),
        timeZone: r.time_zone,
      }));
    },

    /** Bookings overlapping `[fromMs, toMs)`, by start. */
    async bookings(
      workspaceId: string,
      agentId: string,
      fromMs: number,
      toMs: number,
    ): Promise<CalendarBooking[]> {
      const rows = await db
        .selectFrom('calendar_bookings')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', agentId)
        .where('start_at', '<', toMs)
        .where('end_at', '>', fromMs)
        .orderBy('start_at')
        .execute();
      return rows.map((r) => ({
        id: r.id,
        workspaceId: r.workspace_id,
        agentId: r.agent_id,
        startMs: Number(r.start_at),
        endMs: Number(r.end_at),
        name: r.attendee_name,
        email: r.attendee_email,
        createdAt: Number(r.created_at),
      }));
    },

    /** The booking, or null when the agent already has one starting then. */
    async book(
      workspaceId: string,
      agentId: string,
      input: NewCalendarBooking,
    ): Promise<CalendarBooking | null> {
      const id = newId();
      const createdAt = clock.now();
      const row = await db
        .insertInto('calendar_bookings')
        .values({
          id,
          workspace_id: workspaceId,
          agent_id: agentId,
          start_at: input.startMs,
          end_at: input.endMs,
          attendee_name: input.name,
          attendee_email: input.email,
          created_at: createdAt,
        })
        .onConflict((oc) => oc.columns(['agent_id', 'start_at']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!row) return null;
      return { id, workspaceId, agentId, ...input, createdAt };
    },
  };
}

export type CalendarRepo = ReturnType<typeof calendarRepo>;
