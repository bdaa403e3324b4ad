import { afterAll, beforeAll, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi, type TestWorkspace } from '../helpers.ts';
import { expectErrorBody, expectFieldError, type Json } from '../assertions.ts';

// GET /v2/analytics through the HTTP layer, once per dialect, over calls written straight into
// the store (exact times, durations, outcomes, analyses and actions): every published section
// with its figures, the comparison with the period before the range, the default range, the
// 120-day limit, the filters, and workspace scoping.

const NOW = Date.UTC(2026, 5, 15, 12); // 2026-06-15T12:00:00Z
const at = (iso: string) => Date.parse(iso);

forEachStore('analytics API', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let ws: TestWorkspace;
  let alpha: string;
  let beta: string;

  interface Placed {
    at: string;
    agent: string;
    type?: 'outbound' | 'inbound' | 'web';
    status: string;
    reason: string;
    seconds?: number;
    analysis?: Json;
    actions?: string[];
    workspace?: string;
  }

  /** A finished call written in one transaction (never seen by the engine as waiting). */
  async function place(c: Placed): Promise<void> {
    clock.set(at(c.at));
    const workspace = c.workspace ?? ws.id;
    await t.store.transaction(async (repos) => {
      const call = await repos.calls.create(workspace, {
        agentId: c.agent,
        type: c.type ?? 'outbound',
        status: c.status,
        phoneFrom: '+16285550100',
        phoneTo: '+16285550199',
        leadName: 'Lead',
      });
      const executed = Object.fromEntries((c.actions ?? []).map((name) => [name, { name }]));
      await repos.calls.update(workspace, call.id, [c.status], {
        endCallReason: c.reason,
        ...(c.seconds !== undefined ? { durationSeconds: c.seconds } : {}),
        ...(c.analysis ? { analysis: c.analysis } : {}),
        ...(c.actions
          ? { state: { actions: { executed_actions: executed, action_execution_timeline: [] } } }
          : {}),
      });
    });
  }

  async function agent(name: string, type: string, key?: string): Promise<string> {
    const res = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({ name, type }),
      key,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response.model_id as string;
  }

  beforeAll(async () => {
    clock = createManualClock(NOW);
    t = await createTestApi(target, { clock });
    // A workspace of its own, so that no other test's calls count.
    const created = await t.store.workspaces.create({ name: 'a', plan: 'enterprise', maxConcurrentCalls: 5 });
    ws = { id: created.id, key: (await t.store.apiKeys.create(created.id, 'k')).secret };
    alpha = await agent('Alpha', 'outbound', ws.key);
    beta = await agent('Beta', 'inbound', ws.key);
    const theirs = await agent('Theirs', 'outbound', t.other.key);

    // The range 2026-06-10 .. 2026-06-11 (two days).
    await place({
      at: '2026-06-10T09:00:00Z',
      agent: alpha,
      status: 'completed',
      reason: 'human_goodbye',
      seconds: 90,
      analysis: { user_sentiment: true, goal: true },
      actions: ['Book meeting'],
    });
    await place({
      at: '2026-06-10T10:00:00Z',
      agent: alpha,
      status: 'completed',
      reason: 'agent_goodbye',
      seconds: 30,
      analysis: { user_sentiment: false, goal: false },
    });
    await place({ at: '2026-06-10T11:00:00Z', agent: alpha, status: 'no-answer', reason: 'undefined' });
    await place({
      at: '2026-06-11T15:00:00Z',
      agent: beta,
      type: 'inbound',
      status: 'completed',
      reason: 'human_goodbye',
      seconds: 240,
      analysis: { user_sentiment: true, goal: true },
      actions: ['Book meeting', 'Send SMS'],
    });
    // The two days before.
    await place({
      at: '2026-06-09T12:00:00Z',
      agent: alpha,
      status: 'completed',
      reason: 'human_goodbye',
      seconds: 60,
      analysis: { user_sentiment: true, goal: false },
      actions: ['Book meeting'],
    });
    await place({ at: '2026-06-08T12:00:00Z', agent: alpha, status: 'busy', reason: 'undefined' });
    // Outside both, and another workspace's call inside the range.
    await place({
      at: '2026-06-07T23:59:59Z',
      agent: alpha,
      status: 'completed',
      reason: 'human_goodbye',
      seconds: 600,
    });
    await place({
      at: '2026-06-10T12:00:00Z',
      agent: theirs,
      workspace: t.other.id,
      status: 'completed',
      reason: 'human_goodbye',
      seconds: 600,
    });
    // A web call, yesterday (inside the default range).
    await place({
      at: '2026-06-14T08:00:00Z',
      agent: alpha,
      type: 'web',
      status: 'completed',
      reason: 'agent_goodbye',
      seconds: 45,
    });
    clock.set(NOW);
  });
  afterAll(() => t.close());

  const analytics = (query: string, key = ws.key) =>
    t.call({ method: 'GET', url: `/v2/analytics${query}`, key });
  const RANGE = '?from_date=2026-06-10T00:00:00Z&to_date=2026-06-11T23:59:59.999Z';

  async function report(query: string): Promise<Json> {
    const res = await analytics(query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response as Json;
  }

  const zeros = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, 0]));

  it('answers every section for the range, compared with the two days before', async () => {
    const res = await analytics(RANGE);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.status).toBe('ok');
    const r = body.response as Json;
    // The sections are also at the top level, where the published document shows them.
    for (const section of Object.keys(r)) expect(body[section]).toEqual(r[section]);

    expect(r.from_date).toBe('2026-06-10T00:00:00.000Z');
    expect(r.to_date).toBe('2026-06-11T23:59:59.999Z');

    expect(r.duration_metrics).toEqual({
      total_minutes: 6,
      average_duration: 120,
      total_calls: 4,
      series: [
        { date: '2026-06-10', total_minutes: 2, average_duration: 60, total_calls: 3 },
        { date: '2026-06-11', total_minutes: 4, average_duration: 240, total_calls: 1 },
      ],
      total_minutes_percentage_change: 500,
      total_duration_percentage_change: 100,
      total_calls_percentage_change: 100,
    });

    const statusStat = r.call_status_stat as { items: Json[]; series: Json[] };
    expect(statusStat.items).toEqual([
      { status: 'completed', value: 3, percentage: 75, percentage_change: 200 },
      { status: 'no-answer', value: 1, percentage: 25, percentage_change: 100 },
      { status: 'busy', value: 0, percentage: 0, percentage_change: -100 },
    ]);
    const statusKeys = Object.keys(statusStat.series[0]!).filter((k) => k !== 'date');
    for (const k of ['completed', 'hangup_on_voicemail', 'busy', 'no-answer', 'failed', 'left_voicemail']) {
      expect(statusKeys).toContain(k);
    }
    for (const k of [
      'in-progress',
      'checking',
      'paused',
      'queue',
      'initiated',
      'ringing',
      'canceled',
      'pending',
    ]) {
      expect(statusKeys).toContain(k);
    }
    expect(statusStat.series).toEqual([
      { ...zeros(statusKeys), date: '2026-06-10', completed: 2, 'no-answer': 1 },
      { ...zeros(statusKeys), date: '2026-06-11', completed: 1 },
    ]);

    const reasonStat = r.end_call_reason_stat as { items: Json[]; series: Json[] };
    expect(reasonStat.items).toEqual([
      { reason: 'human_goodbye', value: 2, percentage: 50 },
      { reason: 'agent_goodbye', value: 1, percentage: 25 },
      { reason: 'undefined', value: 1, percentage: 25 },
    ]);
    const reasonKeys = Object.keys(reasonStat.series[0]!).filter((k) => k !== 'date');
    for (const k of [
      'voicemail',
      'human_goodbye',
      'agent_goodbye',
      'max_duration',
      'voicemail_message_left',
    ]) {
      expect(reasonKeys).toContain(k);
    }
    expect(reasonStat.series).toEqual([
      { ...zeros(reasonKeys), date: '2026-06-10', human_goodbye: 1, agent_goodbye: 1, undefined: 1 },
      { ...zeros(reasonKeys), date: '2026-06-11', human_goodbye: 1 },
    ]);

    expect(r.sentiment_stat).toEqual({
      positive_percentage: 67,
      series: [
        { date: '2026-06-10', positive: 1, total: 2 },
        { date: '2026-06-11', positive: 1, total: 1 },
      ],
      positive_percentage_change: -33,
    });

    expect(r.executed_actions).toEqual({
      items: [
        {
          name: 'Book meeting',
          value: 2,
          series: [
            { date: '2026-06-10', value: 1 },
            { date: '2026-06-11', value: 1 },
          ],
          percentage_change: 100,
        },
        {
          name: 'Send SMS',
          value: 1,
          series: [
            { date: '2026-06-10', value: 0 },
            { date: '2026-06-11', value: 1 },
          ],
          percentage_change: 100,
        },
      ],
    });

    expect(r.assistant_performance).toEqual({
      by_minutes_used: [
        { model_id: beta, name: 'Beta', minutes_used: 4, percentage_change: 100 },
        { model_id: alpha, name: 'Alpha', minutes_used: 2, percentage_change: 100 },
      ],
      by_calls_made: [
        { model_id: alpha, name: 'Alpha', calls_made: 3, percent_change: 50 },
        { model_id: beta, name: 'Beta', calls_made: 1, percent_change: 100 },
      ],
      by_success_rate: [
        { model_id: beta, name: 'Beta', success_rate: 100, percentage_change: 100 },
        { model_id: alpha, name: 'Alpha', success_rate: 33, percentage_change: 100 },
      ],
    });

    const recent = (r.recent_call_history as { items: Json[] }).items;
    expect(recent.map((c) => [c.created_at, c.call_status, c.duration, c.agent_name])).toEqual([
      ['2026-06-11T15:00:00.000Z', 'completed', 240, 'Beta'],
      ['2026-06-10T11:00:00.000Z', 'no-answer', 0, 'Alpha'],
      ['2026-06-10T10:00:00.000Z', 'completed', 30, 'Alpha'],
      ['2026-06-10T09:00:00.000Z', 'completed', 90, 'Alpha'],
    ]);
    expect(recent[0]).toEqual({
      call_id: expect.any(String),
      call_status: 'completed',
      duration: 240,
      agent_name: 'Beta',
      model_id: beta,
      lead_phone_number: '+16285550100', // inbound: the caller
      created_at: '2026-06-11T15:00:00.000Z',
    });
    expect(recent[1]!.lead_phone_number).toBe('+16285550199'); // outbound: the callee
  });

  it('filters by agent and by type of call; widget means web calls', async () => {
    const betaOnly = await report(`${RANGE}&model_id=${beta}`);
    expect(betaOnly.duration_metrics).toMatchObject({ total_calls: 1, total_minutes: 4 });
    const inbound = await report(`${RANGE}&type_of_call=inbound`);
    expect(inbound.duration_metrics).toMatchObject({ total_calls: 1 });
    const outbound = await report(`${RANGE}&type_of_call=outbound`);
    expect(outbound.duration_metrics).toMatchObject({ total_calls: 3 });
    const widget = await report('?type_of_call=widget');
    expect(widget.duration_metrics).toMatchObject({ total_calls: 1, average_duration: 45 });
    expect(await report('?type_of_call=web')).toEqual(widget);
  });

  it('reports nothing, not an error, for an agent that is not the workspace’s', async () => {
    const theirs = (await t.call({ method: 'GET', url: '/v2/assistants/?limit=1', key: t.other.key })).json()
      .response.assistants[0].model_id as string;
    for (const id of [theirs, 'no-such-agent']) {
      const r = await report(`${RANGE}&model_id=${id}`);
      expect(r.duration_metrics).toMatchObject({ total_calls: 0, total_minutes: 0, average_duration: 0 });
      expect((r.recent_call_history as Json).items).toEqual([]);
      expect((r.assistant_performance as Json).by_calls_made).toEqual([]);
    }
  });

  it('never counts another workspace’s calls', async () => {
    const theirs = (await analytics(RANGE, t.other.key)).json().response as Json;
    expect(theirs.duration_metrics).toMatchObject({ total_calls: 1, total_minutes: 10 });
  });

  it('defaults to the last 7 days, one series entry per UTC day', async () => {
    const r = await report('');
    expect(r.from_date).toBe('2026-06-08T12:00:00.000Z');
    expect(r.to_date).toBe('2026-06-15T12:00:00.000Z');
    const series = (r.duration_metrics as { series: Json[] }).series;
    expect(series.map((s) => s.date)).toEqual([
      '2026-06-08',
      '2026-06-09',
      '2026-06-10',
      '2026-06-11',
      '2026-06-12',
      '2026-06-13',
      '2026-06-14',
      '2026-06-15',
    ]);
    // 06-08 12:00 (busy) is the range's first moment; 06-07 is outside.
    expect(r.duration_metrics).toMatchObject({ total_calls: 7 });
    expect(await report('?to_date=2026-06-15T12:00:00Z')).toEqual(r);
  });

  it('takes a range of exactly 120 days and refuses a longer one naming from_date', async () => {
    const r = await report('?from_date=2026-01-01T00:00:00Z&to_date=2026-05-01T00:00:00Z');
    expect((r.duration_metrics as { series: Json[] }).series).toHaveLength(121);
    expectFieldError(await analytics('?from_date=2026-01-01T00:00:00Z&to_date=2026-05-01T00:00:00.001Z'), [
      'query',
      'from_date',
    ]);
    // Without to_date the range ends now.
    expectFieldError(await analytics('?from_date=2026-02-01T00:00:00Z'), ['query', 'from_date']);
    expect((await analytics('?from_date=2026-03-01T00:00:00Z')).statusCode).toBe(200);
  });

  it.each([
    ['to_date before from_date', '?from_date=2026-06-11T00:00:00Z&to_date=2026-06-10T00:00:00Z', 'to_date'],
    ['from_date in the future without to_date', '?from_date=2026-06-16T00:00:00Z', 'from_date'],
    ['a date without a time', '?from_date=2026-06-10', 'from_date'],
    ['milliseconds instead of a date-time', '?to_date=1781524800000', 'to_date'],
    ['an unknown type of call', '?type_of_call=chat', 'type_of_call'],
    ['an empty model_id', '?model_id=', 'model_id'],
  ])('refuses %s with a 400 naming the field', async (_label, query, field) => {
    expectFieldError(await analytics(query), ['query', field]);
  });

  it('answers on the published path with its trailing slash, and needs a key', async () => {
    expect((await analytics(`/${RANGE}`)).json().response).toEqual(await report(RANGE));
    expectErrorBody(await t.call({ method: 'GET', url: '/v2/analytics', key: null }), 401, 'auth');
  });
});
