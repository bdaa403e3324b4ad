import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DAY_MS, ParleyError, invalidInput, type Clock } from '../../core/index.ts';
import type { Store } from '../../store/index.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { buildReport } from './present.ts';
import { AnalyticsQuery, AnalyticsReport, DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from './schemas.ts';

// `GET /v2/analytics`: call counts, minutes and outcomes of the workspace over a range of at most
// 120 days (default: the last 7), for all agents or one, computed by the store with GROUP BY.
//
// The published document shows the report's sections at the top level of the body, while every
// other operation of the same API wraps its answer in `{status, response}`. The body carries
// both: `status`, the sections in `response`, and the same sections at the top level, so a client
// written for either reading finds them (docs/api-notes.md).

const TAG = ['Analytics'];

function timeOf(value: string | undefined, field: 'from_date' | 'to_date'): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) {
    throw invalidInput(`query.${field} is not a date-time`, ['query', field], 'format');
  }
  return ms;
}

/** The range asked for, defaults applied: [from, to] in ms, both inclusive. */
export function analyticsRange(
  query: { from_date?: string; to_date?: string },
  now: number,
): { from: number; to: number } {
  const givenFrom = timeOf(query.from_date, 'from_date');
  const givenTo = timeOf(query.to_date, 'to_date');
  const to = givenTo ?? now;
  const from = givenFrom ?? to - DEFAULT_RANGE_DAYS * DAY_MS;
  if (from > to) {
    throw givenTo !== undefined
      ? invalidInput('query.to_date must not be before query.from_date', ['query', 'to_date'])
      : invalidInput('query.from_date must not be in the future (to_date defaults to now)', [
          'query',
          'from_date',
        ]);
  }
  if (to - from > MAX_RANGE_DAYS * DAY_MS) {
    const description = `query.from_date to query.to_date spans more than ${MAX_RANGE_DAYS} days (the most one report covers)`;
    throw new ParleyError(description, {
      code: 'invalid_input',
      status: 400,
      category: 'validation',
      errors: [
        { loc: ['query', 'from_date'], msg: description, type: 'range' },
        { loc: ['query', 'to_date'], msg: description, type: 'range' },
      ],
    });
  }
  return { from, to };
}

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ store: Store; clock: Clock }> = async (
  app,
  { store, clock },
) => {
  app.get(
    '/analytics',
    {
      schema: {
        tags: TAG,
        summary: 'Call counts, minutes and outcomes over a date range, for all agents or one',
        querystring: AnalyticsQuery,
        response: {
          200: okEnvelope(AnalyticsReport, AnalyticsReport.properties),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const { from, to } = analyticsRange(q, clock.now());
      const type = q.type_of_call;
      const data = await store.analytics.calls(request.workspace.id, {
        from,
        to,
        ...(q.model_id !== undefined ? { agentId: q.model_id } : {}),
        ...(type !== undefined ? { callType: type === 'widget' ? 'web' : type } : {}),
      });
      const report = buildReport(data, from, to);
      return { status: 'ok' as const, response: report, ...report };
    },
  );
};
