import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { ISO, UUID, expectFieldError, expectNotFound, type Json, okResponse } from '../assertions.ts';

// Drop-in compatibility of the simulation API (cases, suites, execution and results): a client
// written for the published API sends its requests as that API documents them (nullable update
// fields sent as null, `content-type: application/json` with an empty body on body-less
// operations, the published paths) and reads the fields and types the published responses carry.
// The builtin model plays agent, caller and judge, so everything runs offline. The expected
// shapes are written out here, not taken from Parley's schemas.

const EMPTY_JSON = { headers: { 'content-type': 'application/json' }, payload: '' };

const nullOr = (value: unknown, type: string) => value === null || typeof value === type;

/** The published SimulationCaseReadOut. */
function expectPublishedCase(c: Json): void {
  expect(c.simulation_case_id).toMatch(UUID);
  expect(typeof c.workspace_id).toBe('string');
  expect(c.suite_id === null || UUID.test(c.suite_id as string)).toBe(true);
  expect(typeof c.name).toBe('string');
  expect(typeof c.prompt).toBe('string');
  expect(['custom', 'agent_based']).toContain(c.type);
  expect((c.success_criteria as unknown[]).every((s) => typeof s === 'string')).toBe(true);
  expect(['all', 'any']).toContain(c.call_success_type);
  if (c.base_agent !== null) {
    const a = c.base_agent as Json;
    for (const f of ['model_id', 'agent_name', 'agent_type', 'voice_engine_type'])
      expect(typeof a[f], f).toBe('string');
    expect(nullOr(a.phone_number, 'string')).toBe(true);
    expect(nullOr(a.image_url, 'string')).toBe(true);
    expect(a.updated_at).toMatch(ISO);
  }
  expect(c.created_at).toMatch(ISO);
  expect(c.updated_at).toMatch(ISO);
}

/** The published SimulationSuiteReadOut (and list item). */
function expectPublishedSuite(s: Json): void {
  expect(s.id).toMatch(UUID);
  for (const f of ['name', 'model_id', 'workspace_id', 'language']) expect(typeof s[f], f).toBe('string');
  (s.cases as Json[]).forEach(expectPublishedCase);
  for (const summary of s.case_summaries as Json[]) {
    expect(summary.simulation_case_id).toMatch(UUID);
    expect(typeof summary.name).toBe('string');
  }
  const agent = s.agent as Json;
  expect(agent.id).toBe(s.model_id);
  expect(typeof agent.name).toBe('string');
  expect(nullOr(agent.avatar, 'string')).toBe(true);
  expect(s.created_at).toMatch(ISO);
  expect(s.updated_at).toMatch(ISO);
}

/** The published SimulationReadOut. */
function expectPublishedSimulation(sim: Json): void {
  for (const f of ['simulation_id', 'simulation_session_id', 'simulation_case_id'])
    expect(sim[f], f).toMatch(UUID);
  for (const f of [
    'simulation_case_name',
    'simulation_case_prompt',
    'persona_agent_id',
    'persona_phone_number',
    'agent_name',
    'agent_avatar_url',
    'target_phone_number',
    'target_call_id',
    'recording_url',
  ]) {
    expect(nullOr(sim[f], 'string'), f).toBe(true);
  }
  expect(sim.success_criteria === null || Array.isArray(sim.success_criteria)).toBe(true);
  expect([null, 'all', 'any']).toContain(sim.call_success_type);
  expect(typeof sim.target_agent_id).toBe('string');
  expect(nullOr(sim.custom_variables, 'object')).toBe(true);
  expect(['in-progress', 'completed', 'failed']).toContain(sim.status);
  expect(typeof sim.workspace_id).toBe('string');
  expect(sim.created_at).toMatch(ISO);
  expect(sim.updated_at).toMatch(ISO);
  if (sim.error_info !== null) {
    const e = sim.error_info as Json;
    expect(typeof e.message).toBe('string');
    expect(Number.isInteger(e.code)).toBe(true);
    expect(typeof e.type).toBe('string');
  }
  if (sim.timeline !== null) {
    for (const item of sim.timeline as Json[]) {
      for (const f of ['sender_type', 'value', 'type', 'timestamp_datetime', 'timestamp'])
        expect(nullOr(item[f], 'string'), f).toBe(true);
    }
  }
  if (sim.success_criteria_analysis !== null) {
    const a = sim.success_criteria_analysis as Json;
    expect(typeof a.success).toBe('boolean');
    for (const e of a.evaluations as Json[]) {
      expect(typeof e.success).toBe('boolean');
      expect(typeof e.reasoning).toBe('string');
    }
  }
}

forEachStore('compat: simulations, as a client of the published API uses them', (target) => {
  let t: TestApi;
  let agent: string;
  let agentName: string;

  beforeAll(async () => {
    t = await createTestApi(target, { llm: createBuiltinLLM() });
    agentName = 'Mia at Bright Smile';
    agent = okResponse(
      await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: agentBody({
          name: agentName,
          agent: {
            prompt: 'You are Mia at Bright Smile Dental. Ask for their email address.',
            greeting_message: 'Bright Smile, Mia speaking.',
          },
        }),
      }),
    ).model_id as string;
  });
  afterAll(() => t.close());

  const createSuite = async (body: Json) =>
    okResponse(await t.call({ method: 'POST', url: '/v2/simulation_suites', payload: body }));

  const createCase = async (body: Json) => {
    const response = okResponse(await t.call({ method: 'POST', url: '/v2/simulation_cases', payload: body }));
    expect(Object.keys(response)).toEqual(['simulation_case']);
    const c = response.simulation_case as Json;
    expectPublishedCase(c);
    return c;
  };

  it('manages cases: create, list, read, update with nullable fields, by agent, delete', async () => {
    const suite = await createSuite({ name: 'Cases', model_id: agent, language: 'en-US' });
    const published = {
      name: 'Wants a cleaning',
      prompt: 'You want a cleaning next week.',
      type: 'custom',
      success_criteria: ['The agent asks for the email address'],
      call_success_type: 'all',
      suite_id: suite.id,
      base_agent_id: agent,
    };
    const c = await createCase(published);
    expect(c).toMatchObject(published);
    expect(c.base_agent).toMatchObject({ model_id: agent, agent_name: agentName, agent_type: 'outbound' });
    // base_agent_id is string or null in the published create; suite_id is left out.
    const loose = await createCase({ ...published, name: 'Loose', suite_id: undefined, base_agent_id: null });
    expect(loose).toMatchObject({ suite_id: null, base_agent_id: null, base_agent: null });

    const page = okResponse(
      await t.call({
        method: 'GET',
        url: `/v2/simulation_cases?page_number=1&page_size=10&search=cleaning&simulation_case_type=custom&suite_id=${suite.id as string}`,
        ...EMPTY_JSON,
      }),
    );
    expect(page.pagination).toEqual({ total_records: 1, limit: 10, offset: 0 });
    expect(page).toMatchObject({ total: 1, page_number: 1, page_size: 10 });
    (page.items as Json[]).forEach(expectPublishedCase);
    expect((page.items as Json[]).map((x) => x.simulation_case_id)).toEqual([c.simulation_case_id]);

    const url = `/v2/simulation_cases/${c.simulation_case_id as string}`;
    expect(okResponse(await t.call({ method: 'GET', url, ...EMPTY_JSON }))).toEqual(c);

    // A client serializing its whole update model sends null for what it leaves alone.
    const updated = okResponse(
      await t.call({
        method: 'PUT',
        url,
        payload: {
          name: 'Wants a whitening',
          prompt: null,
          success_criteria: null,
          call_success_type: 'any',
          suite_id: suite.id,
        },
      }),
    );
    expectPublishedCase(updated);
    expect(updated).toMatchObject({
      name: 'Wants a whitening',
      prompt: published.prompt,
      success_criteria: published.success_criteria,
      call_success_type: 'any',
      suite_id: suite.id,
    });

    const byAgent = okResponse(
      await t.call({ method: 'GET', url: `/v2/simulation_cases/by_agent?agent_id=${agent}`, ...EMPTY_JSON }),
    ) as unknown as Json[];
    expect(Array.isArray(byAgent)).toBe(true);
    byAgent.forEach(expectPublishedCase);
    expect(byAgent.map((x) => x.simulation_case_id)).toContain(c.simulation_case_id);

    const deleted = await t.call({ method: 'DELETE', url, ...EMPTY_JSON });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(deleted.body).toBe('');
    expectNotFound(await t.call({ method: 'GET', url, ...EMPTY_JSON }));
  });

  it('manages suites: create, list with the published filters, read, update with nulls, delete', async () => {
    const suite = await createSuite({ name: 'Front desk', model_id: agent, language: 'en-US' });
    expectPublishedSuite(suite);
    expect(suite).toMatchObject({ name: 'Front desk', model_id: agent, language: 'en-US', cases: [] });
    expect(suite.agent).toEqual({ id: agent, name: agentName, avatar: null });
    const c = await createCase({
      name: 'Asks for hours',
      prompt: 'You ask when the practice opens.',
      type: 'agent_based',
      success_criteria: ['The agent answers'],
      call_success_type: 'all',
      suite_id: suite.id,
    });

    const since = encodeURIComponent(new Date(Date.parse(suite.created_at as string) - 1000).toISOString());
    const page = okResponse(
      await t.call({
        method: 'GET',
        url: `/v2/simulation_suites?page_number=1&page_size=10&search=front&model_ids=${agent}&start_date=${since}`,
        ...EMPTY_JSON,
      }),
    );
    expect(page).toMatchObject({ total: 1, page_number: 1, page_size: 10 });
    const [item] = page.items as Json[];
    expectPublishedSuite(item!);
    expect(item!.case_summaries).toEqual([
      { simulation_case_id: c.simulation_case_id, name: 'Asks for hours' },
    ]);

    const url = `/v2/simulation_suites/${suite.id as string}`;
    const read = okResponse(await t.call({ method: 'GET', url, ...EMPTY_JSON }));
    expectPublishedSuite(read);
    const updated = okResponse(
      await t.call({ method: 'PUT', url, payload: { name: 'Reception', model_id: null } }),
    );
    expectPublishedSuite(updated);
    expect(updated).toMatchObject({ name: 'Reception', model_id: agent });
    expect(
      okResponse(await t.call({ method: 'PUT', url, payload: { name: null, model_id: agent } })),
    ).toMatchObject({ name: 'Reception' });

    const deleted = await t.call({ method: 'DELETE', url, ...EMPTY_JSON });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expectNotFound(await t.call({ method: 'GET', url, ...EMPTY_JSON }));
  });

  it('generates cases (NDJSON), executes the suite and reads the session and its simulations', async () => {
    const suite = await createSuite({ name: 'Generated', model_id: agent });
    const generated = await t.call({
      method: 'POST',
      url: '/v2/simulation_cases/generate',
      payload: { agent_id: agent, suite_id: suite.id, include_tests: ['task_completion', 'angry_user'] },
    });
    expect(generated.statusCode, generated.body).toBe(200);
    const lines = generated.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    expect(lines[0]).toMatchObject({ type: 'progress', done: 0 });
    expect(lines.at(-1)).toMatchObject({ type: 'done' });
    const cases = lines.filter((l) => l.type === 'case').map((l) => l.simulation_case as Json);
    expect(cases.length).toBeGreaterThan(0);
    cases.forEach(expectPublishedCase);

    const started = okResponse(
      await t.call({
        method: 'POST',
        url: `/v2/simulation_suites/${suite.id as string}/execute?target_agent_id=${agent}&max_turns=10`,
        ...EMPTY_JSON,
      }),
    );
    expect(started.session_id).toMatch(UUID);
    expect(started.suite_id).toBe(suite.id);
    expect(started.suite_name).toBe('Generated');
    expect(started.total_cases).toBe(cases.length);
    expect(typeof started.status).toBe('string');
    await t.engine.simulations.idle();

    // The published path (`session`) and Parley's (`sessions`) read the same session.
    const session = okResponse(
      await t.call({
        method: 'GET',
        url: `/v2/simulations/session/${started.session_id as string}`,
        ...EMPTY_JSON,
      }),
    );
    expect(
      okResponse(
        await t.call({
          method: 'GET',
          url: `/v2/simulations/sessions/${started.session_id as string}`,
          ...EMPTY_JSON,
        }),
      ),
    ).toEqual(session);
    expect(session.simulation_session_id).toBe(started.session_id);
    for (const f of [
      'total_simulations',
      'completed_simulations',
      'failed_simulations',
      'pending_simulations',
    ])
      expect(Number.isInteger(session[f]), f).toBe(true);
    expect(session).toMatchObject({ total_simulations: cases.length, pending_simulations: 0 });
    const simulations = session.simulations as Json[];
    simulations.forEach(expectPublishedSimulation);
    const one = simulations.find((s) => s.status === 'completed')!;
    expect(one).toMatchObject({
      target_agent_id: agent,
      agent_name: agentName,
      workspace_id: t.ws.id,
      error_info: null,
    });
    const ofCase = cases.find((c) => c.simulation_case_id === one.simulation_case_id)!;
    expect(one).toMatchObject({
      simulation_case_name: ofCase.name,
      simulation_case_prompt: ofCase.prompt,
      success_criteria: ofCase.success_criteria,
      call_success_type: ofCase.call_success_type,
    });
    const analysis = one.success_criteria_analysis as Json;
    expect(analysis.success).toBe(one.passed);
    expect((analysis.evaluations as Json[]).length).toBe((one.criteria_results as Json[]).length);
    const timeline = one.timeline as Json[];
    expect(timeline[0]).toMatchObject({ sender_type: 'agent', value: 'Bright Smile, Mia speaking.' });
    expect(timeline.some((i) => i.sender_type === 'user')).toBe(true);

    const single = okResponse(
      await t.call({ method: 'GET', url: `/v2/simulations/${one.simulation_id as string}`, ...EMPTY_JSON }),
    );
    expect(single).toEqual(one);
  });

  it('starts one simulation from a case and lists simulations and sessions as published', async () => {
    const c = await createCase({
      name: 'Books a cleaning',
      prompt: 'You want a cleaning next week.',
      type: 'custom',
      success_criteria: ['The agent asks for the email address'],
      call_success_type: 'all',
    });
    // The published SimulationCreateIn: a null session, custom variables as an object.
    const started = okResponse(
      await t.call({
        method: 'POST',
        url: '/v2/simulations',
        payload: {
          simulation_case_id: c.simulation_case_id,
          target_agent_id: agent,
          simulation_session_id: null,
          custom_variables: { first_name: 'Ada' },
        },
      }),
    );
    expectPublishedSimulation(started);
    expect(started).toMatchObject({
      simulation_case_id: c.simulation_case_id,
      target_agent_id: agent,
      agent_name: agentName,
      status: 'in-progress',
      custom_variables: { first_name: 'Ada' },
      simulation_case_name: 'Books a cleaning',
      workspace_id: t.ws.id,
    });
    await t.engine.simulations.idle();

    const since = encodeURIComponent(new Date(Date.parse(started.created_at as string) - 1000).toISOString());
    const sims = okResponse(
      await t.call({
        method: 'GET',
        url: `/v2/simulations?page_number=1&page_size=10&simulation_session_id=${started.simulation_session_id as string}&status=completed&start_date=${since}&target_agent_id=${agent}`,
        ...EMPTY_JSON,
      }),
    );
    const pagination = sims.pagination as Json;
    for (const f of ['total_records', 'limit', 'offset'])
      expect(Number.isInteger(pagination[f]), f).toBe(true);
    expect(pagination).toEqual({ total_records: 1, limit: 10, offset: 0 });
    const [sim] = sims.items as Json[];
    expectPublishedSimulation(sim!);
    expect(sim).toMatchObject({ simulation_id: started.simulation_id, status: 'completed' });
    expect(typeof sim!.success_criteria_analysis).toBe('object');

    const sessions = okResponse(
      await t.call({
        method: 'GET',
        url: `/v2/simulations/sessions?page_number=1&page_size=10&target_agent_id=${agent}&start_date=${since}`,
        ...EMPTY_JSON,
      }),
    );
    expect(Number.isInteger((sessions.pagination as Json).total_records)).toBe(true);
    const session = (sessions.items as Json[]).find(
      (x) => x.simulation_session_id === started.simulation_session_id,
    )!;
    expect(session.simulation_session_id).toMatch(UUID);
    for (const f of [
      'total_simulations',
      'completed_simulations',
      'failed_simulations',
      'pending_simulations',
    ])
      expect(Number.isInteger(session[f]), f).toBe(true);
    expect(session).toMatchObject({ total_simulations: 1, completed_simulations: 1, pending_simulations: 0 });
    (session.simulations as Json[]).forEach(expectPublishedSimulation);
    expect((session.simulations as Json[])[0]).toEqual(sim);
  });

  it('keeps bad input a 400 (or 422/404 where published) naming the field', async () => {
    expectFieldError(
      await t.call({
        method: 'PUT',
        url: `/v2/simulation_cases/${randomUUID()}`,
        payload: { call_success_type: 'most' },
      }),
      ['body', 'call_success_type'],
    );
    expectFieldError(
      await t.call({ method: 'PUT', url: `/v2/simulation_suites/${randomUUID()}`, payload: { name: 5 } }),
      ['body', 'name'],
    );
    expectNotFound(
      await t.call({ method: 'GET', url: `/v2/simulations/session/${randomUUID()}`, ...EMPTY_JSON }),
    );
    expectNotFound(
      await t.call({
        method: 'POST',
        url: '/v2/simulations',
        payload: { simulation_case_id: randomUUID(), target_agent_id: agent },
      }),
    );
    expectFieldError(
      await t.call({ method: 'POST', url: '/v2/simulations', payload: { simulation_case_id: randomUUID() } }),
      ['body', 'target_agent_id'],
    );
    expectFieldError(await t.call({ method: 'POST', url: '/v2/simulations', ...EMPTY_JSON }), ['body']);
    expectFieldError(await t.call({ method: 'GET', url: '/v2/simulations?status=queued', ...EMPTY_JSON }), [
      'query',
      'status',
    ]);
    expectFieldError(
      await t.call({ method: 'GET', url: '/v2/simulations/sessions?start_date=today', ...EMPTY_JSON }),
      ['query', 'start_date'],
    );
    expectFieldError(await t.call({ method: 'GET', url: '/v2/simulations/session/nope', ...EMPTY_JSON }), [
      'params',
      'simulation_session_id',
    ]);
  });
});
