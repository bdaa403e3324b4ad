import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { invalidInput, notFound, systemClock, toIso, type Clock, isValidTimeZone } from '../../core/index.ts';
import type { CalendarWorkingHours, Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { NonEmptyString, StringEnum, errorResponses, okEnvelope } from '../schemas/common.ts';

// Parley's own addition: the builtin calendar of an agent (REAL_TIME_BOOKING actions whose
// `calendar` is `builtin`): its weekly working hours and its upcoming bookings. Until hours are
// set, the agent is bookable Monday to Friday 09:00-17:00 in each booking action's timezone.

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const MAX_INTERVALS = 50;
const MAX_BOOKINGS_LISTED = 100;

const Interval = Type.Object({
  weekday: StringEnum(WEEKDAYS),
  from: Type.String({ description: 'HH:MM, local time in `timezone`.', maxLength: 5 }),
  to: Type.String({ description: 'HH:MM (24:00 for midnight), after `from`.', maxLength: 5 }),
  timezone: NonEmptyString(64, 'IANA time zone.'),
});

const CalendarRecord = Type.Object({
  model_id: Type.String(),
  uses_default_hours: Type.Boolean({
    description: 'No hours set: Monday to Friday 09:00-17:00 in the booking action’s timezone.',
  }),
  working_hours: Type.Array(Interval),
  upcoming_bookings: Type.Array(
    Type.Object({
      booking_id: Type.String(),
      start: Type.String({ format: 'date-time' }),
      end: Type.String({ format: 'date-time' }),
      name: Type.String(),
      email: Type.String(),
      created_at: Type.String({ format: 'date-time' }),
    }),
  ),
});

const Params = Type.Object({ model_id: NonEmptyString(100) });
const PutBody = Type.Object({ working_hours: Type.Array(Interval, { maxItems: MAX_INTERVALS }) });

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const hhmmOf = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

export const calendarRoutes: FastifyPluginAsyncTypebox<{ store: Store; clock?: Clock }> = async (
  app,
  options,
) => {
  const { store } = options;
  const clock = options.clock ?? systemClock;

  async function present(workspaceId: string, agentId: string) {
    const hours = await store.calendar.workingHours(workspaceId, agentId);
    const now = clock.now();
    const bookings = await store.calendar.bookings(workspaceId, agentId, now, Number.MAX_SAFE_INTEGER);
    return {
      model_id: agentId,
      uses_default_hours: hours.length === 0,
      working_hours: hours.map((h) => ({
        weekday: WEEKDAYS[h.weekday] ?? 'monday',
        from: hhmmOf(h.startMinute),
        to: hhmmOf(h.endMinute),
        timezone: h.timeZone,
      })),
      upcoming_bookings: bookings.slice(0, MAX_BOOKINGS_LISTED).map((b) => ({
        booking_id: b.id,
        start: toIso(b.startMs),
        end: toIso(b.endMs),
        name: b.name,
        email: b.email,
        created_at: toIso(b.createdAt),
      })),
    };
  }

  async function agentOf(workspaceId: string, id: string) {
    const agent = await store.agents.get(workspaceId, id);
    if (!agent) throw notFound(`model_id: agent ${id} not found`);
    return agent;
  }

  app.get(
    '/assistants/:model_id/calendar',
    {
      schema: {
        tags: ['Agents'],
        summary: 'The builtin calendar of an agent: working hours and upcoming bookings',
        params: Params,
        response: { 200: okEnvelope(CalendarRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const agent = await agentOf(request.workspace.id, request.params.model_id);
      return ok(await present(agent.workspaceId, agent.id));
    },
  );

  app.put(
    '/assistants/:model_id/calendar',
    {
      schema: {
        tags: ['Agents'],
        summary: 'Set the working hours of an agent’s builtin calendar (an empty list: the defaults)',
        params: Params,
        body: PutBody,
        response: { 200: okEnvelope(CalendarRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const agent = await agentOf(request.workspace.id, request.params.model_id);
      const hours: CalendarWorkingHours[] = request.body.working_hours.map((h, i) => {
        const loc = (field: string) => ['body', 'working_hours', i, field];
        for (const field of ['from', 'to'] as const) {
          if (!HHMM.test(h[field]) || (field === 'from' && h.from === '24:00'))
            throw invalidInput(`body.working_hours[${i}].${field} must be HH:MM`, loc(field));
        }
        if (minutesOf(h.to) <= minutesOf(h.from))
          throw invalidInput(`body.working_hours[${i}].to must be after from`, loc('to'));
        if (!isValidTimeZone(h.timezone))
          throw invalidInput(
            `body.working_hours[${i}].timezone "${h.timezone}" is not an IANA time zone`,
            loc('timezone'),
          );
        return {
          weekday: WEEKDAYS.indexOf(h.weekday),
          startMinute: minutesOf(h.from),
          endMinute: minutesOf(h.to),
          timeZone: h.timezone,
        };
      });
      await store.calendar.setWorkingHours(agent.workspaceId, agent.id, hours);
      return ok(await present(agent.workspaceId, agent.id));
    },
  );
};
