import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import type { Json } from '../assertions.ts';

// Drop-in compatibility of the analytics export: a client written for the published API asks
// `GET /analytics/` (trailing slash) with ISO date-times, `model_id` and `type_of_call`, and reads
// the sections where the published document puts them (at the top level of the body) with the
// published integer types; a client that unwraps `response`, as for every other operation, finds
// the same sections there. The calls are placed through the API on the simulated carrier. The
// expected shapes are written out here.

const FROM = '+14155550123';

/** Published integer fields of each section (nested arrays checked item by item). */
function expectIntegers(obj: Json, fields: string[]): void {
  for (const f of fields) expect(Number.isInteger(obj[f]), f).toBe(true);
}

function expectPublishedReport(r: Json): void {
  const duration = r.duration_metrics as Json;
  expectIntegers(duration, [
    'total_minutes',
    'average_duration',
    'total_calls',
    'total_minutes_percentage_change',
    'total_duration_percentage_change',
    'total_calls_percentage_change',
  ]);
  for (const s of duration.series as Json[]) {
    expect(typeof s.date).toBe('string');
    expectIntegers(s, ['total_minutes', 'average_duration', 'total_calls']);
  }
  const status = r.call_status_stat as Json;
  for (const i of status.items as Json[]) {
    expect(typeof i.status).toBe('string');
    expectIntegers(i, ['value', 'percentage', 'percentage_change']);
  }
  for (const s of status.series as Json[]) {
    expectIntegers(s, [
      'completed',
      'hangup_on_voicemail',
      'busy',
      'no-answer',
      'failed',
      'left_voicemail',
      'in-progress',
      'checking',
      'paused',
      'queue',
      'initiated',
      'ringing',
    ]);
  }
  const reasons = r.end_call_reason_stat as Json;
  for (const i of reasons.items as Json[]) {
    expect(typeof i.reason).toBe('string');
    expectIntegers(i, ['value', 'percentage']);
  }
  for (const s of reasons.series as Json[]) {
    expectIntegers(s, [
      'voicemail',
      'human_goodbye',
      'agent_goodbye',
      'human_pick_up_cut_off',
      'max_duration',
      'idle_time_exceeded',
      'goodbye_detected',
      'user_disconnected',
      'voicemail_message_left',
    ]);
  }
  const sentiment = r.sentiment_stat as Json;
  expectIntegers(sentiment, ['positive_percentage', 'positive_percentage_change']);
  for (const s of sentiment.series as Json[]) expectIntegers(s, ['positive', 'total']);
  for (const a of (r.executed_actions as Json).items as Json[]) {
    expect(typeof a.name).toBe('string');
    expectIntegers(a, ['value', 'percentage_change']);
  }
  const perf = r.assistant_performance as Json;
  for (const a of perf.by_minutes_used as Json[]) expectIntegers(a, ['minutes_used', 'percentage_change']);
  for (const a of perf.by_calls_made as Json[]) expectIntegers(a, ['calls_made', 'percent_change']);
  for (const a of perf.by_success_rate as Json[]) expectIntegers(a, ['success_rate', 'percentage_change']);
  for (const c of (r.recent_call_history as Json).items as Json[]) {
    for (const f of ['call_id', 'call_status', 'agent_name', 'model_id', 'lead_phone_number', 'created_at']) {
      expect(typeof c[f], f).toBe('string');
    }
    expectIntegers(c, ['duration']);
  }
}

forEachStore('analytics, as a client of the published API uses it', (target) => {
  let t: TestApi;
  let agent: string;

  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response as Json;
  }

  beforeAll(async () => {
    t = await createTestApi(target);
    agent = (await ok('POST', '/v2/assistants', agentBody({ name: 'Dialer' }))).model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: FROM, provider: 'sim' });
    await ok('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: [FROM] });
    // The sim carrier's test numbers: no answer, busy, and a pick-up cut off at once.
    for (const phone of ['+14155550000', '+14155551111', '+14155554444']) {
      await ok('POST', '/v2/calls', { model_id: agent, phone, name: 'Lead' });
    }
    await t.engine.calls.idle();
  });
  afterAll(() => t.close());

  it('exports the calls of an agent with the published query and shapes', async () => {
    const from = new Date(Date.now() - 24 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const to = new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const res = await t.call({
      method: 'GET',
      url: `/v2/analytics/?from_date=${from}&to_date=${to}&model_id=${agent}&type_of_call=outbound`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Json;
    expectPublishedReport(body);
    expect((body.duration_metrics as Json).total_calls).toBe(3);
    const statuses = ((body.call_status_stat as Json).items as Json[]).map((i) => [i.status, i.value]);
    expect(statuses).toEqual(
      expect.arrayContaining([
        ['no-answer', 1],
        ['busy', 1],
        ['completed', 1],
      ]),
    );
    const reasons = ((body.end_call_reason_stat as Json).items as Json[]).map((i) => [i.reason, i.value]);
    expect(reasons).toEqual(
      expect.arrayContaining([
        ['human_pick_up_cut_off', 1],
        ['undefined', 2],
      ]),
    );
    const recent = (body.recent_call_history as Json).items as Json[];
    expect(recent.map((c) => c.lead_phone_number).sort()).toEqual([
      '+14155550000',
      '+14155551111',
      '+14155554444',
    ]);
    expect(recent.every((c) => c.model_id === agent && c.agent_name === 'Dialer')).toBe(true);
    const byCalls = (body.assistant_performance as Json).by_calls_made as Json[];
    expect(byCalls).toEqual([{ model_id: agent, name: 'Dialer', calls_made: 3, percent_change: 100 }]);

    // The usual envelope carries the same report.
    expect(body.status).toBe('ok');
    expectPublishedReport(body.response as Json);
    expect((body.response as Json).duration_metrics).toEqual(body.duration_metrics);
  });

  it('exports the last 7 days when no range is given', async () => {
    const res = await t.call({ method: 'GET', url: '/v2/analytics/' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Json;
    expectPublishedReport(body);
    expect(((body.duration_metrics as Json).series as Json[]).length).toBe(8);
  });

  it('refuses a range over 120 days with a 400 that names from_date', async () => {
    const res = await t.call({
      method: 'GET',
      url: '/v2/analytics/?from_date=2025-01-01T00:00:00Z&to_date=2025-06-01T00:00:00Z',
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().detail.description).toContain('from_date');
  });
});
