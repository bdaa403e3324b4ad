import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest, LLM } from '../../src/providers/index.ts';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { createScriptedLLM, type ScriptedReply } from '../../src/providers/testing/index.ts';
import { expectErrorBody, expectFieldError, expectNotFound } from '../assertions.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Executing suites: a scripted model plays the agent, the simulated caller and the judge, so
// verdicts are deterministic (a case that passes, one that fails, all vs any, a conversation cut
// by max_turns); the execute parameters and the result reads with their errors; the NDJSON
// generation stream read incrementally by a real HTTP client; and an offline run end to end with
// the builtin model.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const isCaller = (r: ChatRequest) =>
  r.messages[0]?.role === 'system' && r.messages[0].content.includes('role-playing a person');
const isJudge = (r: ChatRequest) => (r.tools ?? []).some((t) => t.name === 'record_verdicts');

/** The verdicts the judge gives: every criterion passes unless it mentions "refund". */
function judge(r: ChatRequest): ScriptedReply {
  const text = r.messages.map((m) => ('content' in m ? m.content : '')).join('\n');
  const listed = [...text.matchAll(/^\s*(\d+)[.)] (.+)$/gm)].map((m) => m[2]!.trim());
  const items = listed.map((criterion) => ({
    criterion,
    passed: !/refund/i.test(criterion),
    reason: /refund/i.test(criterion) ? 'No refund was offered.' : 'Done as asked.',
  }));
  return { toolCalls: [{ name: 'record_verdicts', arguments: { verdicts: items } }] };
}

forEachStore('simulation runs', (target) => {
  let t: TestApi;
  let agent: string;
  let suite: string;
  const caseIds: Record<string, string> = {};

  /** Released once the client has read the first case: later cases wait for it (see generation). */
  let releaseGeneration: () => void = () => undefined;
  let generationGate = Promise.resolve();
  let generationCalls = 0;

  beforeAll(async () => {
    const scripted = createScriptedLLM(
      [
        (r) => {
          if (isJudge(r)) return judge(r);
          // The caller never ends: conversations run until max_turns cuts them.
          if (isCaller(r)) return { text: 'Tell me more about that.' };
          return { text: 'Happy to help with your order.' };
        },
      ],
      { repeatLast: true },
    );
    // Case generation gets valid cases; from the second on, only after the gate opens, which
    // proves that the first line reached the client before the stream ended.
    const llm: LLM = {
      name: 'gated',
      async *chat(request) {
        if (!(request.tools ?? []).some((tool) => tool.name === 'record_test_case')) {
          yield* scripted.chat(request);
          return;
        }
        if (generationCalls++ > 0) await generationGate;
        const n = generationCalls;
        const args = {
          name: `Generated ${n}`,
          prompt: 'You want a refund.',
          success_criteria: ['The agent helps'],
          call_success_type: 'all',
        };
        yield {
          type: 'tool_call',
          call: { id: `g${n}`, name: 'record_test_case', arguments: JSON.stringify(args) },
        };
        yield { type: 'done', finishReason: 'tool_calls', timings: { startedAt: 0, endedAt: 0 } };
      },
    };
    t = await createTestApi(target, { llm });
    agent = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({ agent: { prompt: 'You help customers with orders.', greeting_message: 'Hello!' } }),
      )
    ).model_id as string;
    suite = ((await ok('POST', '/v2/simulation_suites', { name: 'Orders', model_id: agent })) as Json)
      .id as string;
    for (const [name, criteria, type] of [
      ['helps', ['The agent offers help'], 'all'],
      ['refund all', ['The agent offers help', 'The agent offers a refund'], 'all'],
      ['refund any', ['The agent offers help', 'The agent offers a refund'], 'any'],
    ] as const) {
      const made = await ok('POST', '/v2/simulation_cases', {
        name,
        prompt: 'You want to know where your order is.',
        success_criteria: criteria,
        call_success_type: type,
        suite_id: suite,
      });
      caseIds[name] = made.simulation_case.simulation_case_id as string;
    }
  });
  afterAll(() => t.close());

  const call = (method: string, url: string, payload?: Json) =>
    t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await call(method, url, payload);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: Json }).response;
  }

  it('runs every case of the suite; verdicts decide each case (all vs any); max_turns cuts the conversation', async () => {
    const started = await ok(
      'POST',
      `/v2/simulation_suites/${suite}/execute?target_agent_id=${agent}&max_turns=10`,
    );
    expect(started).toMatchObject({
      suite_id: suite,
      suite_name: 'Orders',
      total_cases: 3,
      status: 'in-progress',
    });
    await t.engine.simulations.idle();
    const session = await ok('GET', `/v2/simulations/sessions/${started.session_id}`);
    expect(session).toMatchObject({
      simulation_session_id: started.session_id,
      status: 'completed',
      total_simulations: 3,
      completed_simulations: 3,
      failed_simulations: 0,
      pending_simulations: 0,
      max_turns: 10,
    });
    const byCase = new Map((session.simulations as Json[]).map((s) => [s.simulation_case_id, s]));
    expect(byCase.get(caseIds.helps)).toMatchObject({ status: 'completed', passed: true, turns: 10 });
    expect(byCase.get(caseIds['refund all'])).toMatchObject({ passed: false });
    expect(byCase.get(caseIds['refund any'])).toMatchObject({ passed: true });
    expect(byCase.get(caseIds['refund all'])!.criteria_results).toEqual([
      { criterion: 'The agent offers help', passed: true, reason: 'Done as asked.' },
      { criterion: 'The agent offers a refund', passed: false, reason: 'No refund was offered.' },
    ]);
    const one = byCase.get(caseIds.helps)!;
    expect((one.transcript as string).split('\n')[0]).toBe('bot: Hello!');
    expect((one.transcript as string).split('\n').filter((l) => l.startsWith('human: '))).toHaveLength(10);
    const single = await ok('GET', `/v2/simulations/${one.simulation_id}`);
    expect(single).toEqual(one);
    const sessions = await ok('GET', `/v2/simulation_suites/${suite}/sessions`);
    expect(sessions.sessions.map((s: Json) => s.simulation_session_id)).toContain(started.session_id);
  });

  it('refuses a wrong target agent, max_turns out of 10..50, unknown or malformed ids', async () => {
    const exec = (q: string, id = suite) => call('POST', `/v2/simulation_suites/${id}/execute?${q}`);
    expectFieldError(await exec(`target_agent_id=${randomUUID()}`), ['query', 'target_agent_id']);
    expectFieldError(await exec('max_turns=20'), ['query', 'target_agent_id']);
    expectFieldError(await exec(`target_agent_id=${agent}&max_turns=9`), ['query', 'max_turns']);
    expectFieldError(await exec(`target_agent_id=${agent}&max_turns=51`), ['query', 'max_turns']);
    expectNotFound(await exec(`target_agent_id=${agent}`, randomUUID()));
    expectFieldError(await exec(`target_agent_id=${agent}`, 'nope'), ['params', 'suite_id']);
    expectNotFound(await call('GET', `/v2/simulations/sessions/${randomUUID()}`));
    expectNotFound(await call('GET', `/v2/simulations/${randomUUID()}`));
    expectFieldError(await call('GET', '/v2/simulations/sessions/nope'), ['params', 'session_id']);
  });

  describe('one case alone (POST /v2/simulations) and the workspace lists', () => {
    let greeter: string;
    let started: Json;
    let joined: Json;

    beforeAll(async () => {
      greeter = (
        await ok(
          'POST',
          '/v2/assistants',
          agentBody({ agent: { prompt: 'You greet callers.', greeting_message: 'Hello from {city}!' } }),
        )
      ).model_id as string;
      // A case of the suite of another agent runs on the agent named: the case is the caller.
      started = await ok('POST', '/v2/simulations', {
        simulation_case_id: caseIds.helps,
        target_agent_id: greeter,
        custom_variables: { city: 'Oslo' },
        max_turns: 10,
      });
      joined = await ok('POST', '/v2/simulations', {
        simulation_case_id: caseIds['refund all'],
        target_agent_id: greeter,
        simulation_session_id: started.simulation_session_id,
        custom_variables: [{ key: 'city', value: 'Bergen' }],
      });
      await t.engine.simulations.idle();
    });

    it('answers the simulation at once and runs it in a new session of no suite', async () => {
      expect(started).toMatchObject({
        simulation_case_id: caseIds.helps,
        target_agent_id: greeter,
        status: 'in-progress',
        passed: null,
        custom_variables: { city: 'Oslo' },
        simulation_case_name: 'helps',
        error: null,
      });
      expect(started.simulation_id).not.toBe(started.simulation_session_id);
      const done = await ok('GET', `/v2/simulations/${started.simulation_id}`);
      expect(done).toMatchObject({
        status: 'completed',
        passed: true,
        turns: 10,
        custom_variables: { city: 'Oslo' },
      });
      expect((done.transcript as string).split('\n')[0]).toBe('bot: Hello from Oslo!');
    });

    it('adds a simulation to the session given; variables as {key, value} items', async () => {
      expect(joined).toMatchObject({
        simulation_session_id: started.simulation_session_id,
        simulation_case_id: caseIds['refund all'],
        custom_variables: { city: 'Bergen' },
      });
      const session = await ok('GET', `/v2/simulations/sessions/${started.simulation_session_id}`);
      expect(session).toMatchObject({
        suite_id: '',
        model_id: greeter,
        status: 'completed',
        max_turns: 10,
        total_simulations: 2,
        completed_simulations: 2,
        pending_simulations: 0,
      });
      const second = (session.simulations as Json[]).find((x) => x.simulation_id === joined.simulation_id)!;
      expect(second).toMatchObject({ status: 'completed', passed: false, turns: 10 });
      expect((second.transcript as string).split('\n')[0]).toBe('bot: Hello from Bergen!');
      // Not one of the suite's sessions.
      const ofSuite = await ok('GET', `/v2/simulation_suites/${suite}/sessions?limit=100`);
      expect(ofSuite.sessions.map((x: Json) => x.simulation_session_id)).not.toContain(
        started.simulation_session_id,
      );
    });

    it('lists the workspace sessions newest first, with their simulations, filtered and paged', async () => {
      const page = await ok('GET', '/v2/simulations/sessions');
      expect(page).toMatchObject({ page_number: 1, page_size: 10 });
      expect(page.pagination).toEqual({ total_records: page.total, limit: 10, offset: 0 });
      const first = (page.items as Json[])[0]!;
      expect(first.simulation_session_id).toBe(started.simulation_session_id);
      expect((first.simulations as Json[]).map((x) => x.simulation_id)).toEqual([
        started.simulation_id,
        joined.simulation_id,
      ]);
      expect(first).toEqual(await ok('GET', `/v2/simulations/sessions/${started.simulation_session_id}`));
      const ofGreeter = await ok('GET', `/v2/simulations/sessions?target_agent_id=${greeter}`);
      expect(ofGreeter.total).toBe(1);
      const ofAgent = await ok('GET', `/v2/simulations/sessions?target_agent_id=${agent}`);
      expect((ofAgent.items as Json[]).every((x) => x.model_id === agent && x.suite_id === suite)).toBe(true);
      expect(ofAgent.total).toBe(page.total - 1);
      const since = encodeURIComponent(first.created_at as string);
      expect((await ok('GET', `/v2/simulations/sessions?start_date=${since}`)).total).toBeGreaterThanOrEqual(
        1,
      );
      const before = encodeURIComponent(new Date(Date.parse(first.created_at as string) - 1).toISOString());
      const older = await ok('GET', `/v2/simulations/sessions?end_date=${before}&page_size=100`);
      expect((older.items as Json[]).map((x) => x.simulation_session_id)).not.toContain(
        started.simulation_session_id,
      );
      const p1 = await ok('GET', '/v2/simulations/sessions?page_size=1');
      const p2 = await ok('GET', '/v2/simulations/sessions?page_size=1&page_number=2');
      expect(p2.pagination).toEqual({ total_records: page.total, limit: 1, offset: 1 });
      expect([...p1.items, ...p2.items].map((x: Json) => x.simulation_session_id)).toEqual(
        (page.items as Json[]).slice(0, 2).map((x) => x.simulation_session_id),
      );
      const beyond = await ok('GET', '/v2/simulations/sessions?page_number=1000');
      expect(beyond).toMatchObject({ items: [], total: page.total });
    });

    it('lists the workspace simulations newest first, filtered and paged', async () => {
      const page = await ok('GET', '/v2/simulations?page_size=100');
      const ids = (page.items as Json[]).map((x) => x.simulation_id);
      expect(ids.slice(0, 2)).toEqual([joined.simulation_id, started.simulation_id]);
      expect(page.total).toBe(ids.length);
      expect(page.items[0]).toEqual(await ok('GET', `/v2/simulations/${joined.simulation_id}`));
      const inSession = await ok(
        'GET',
        `/v2/simulations?simulation_session_id=${started.simulation_session_id}`,
      );
      expect((inSession.items as Json[]).map((x) => x.simulation_id)).toEqual([
        joined.simulation_id,
        started.simulation_id,
      ]);
      expect((await ok('GET', `/v2/simulations?target_agent_id=${greeter}`)).total).toBe(2);
      expect((await ok('GET', `/v2/simulations?target_agent_id=${agent}`)).total).toBe(page.total - 2);
      const completed = await ok('GET', '/v2/simulations?status=completed&page_size=100');
      expect(completed.total).toBe(page.total);
      expect((await ok('GET', '/v2/simulations?status=failed')).total).toBe(0);
      expect((await ok('GET', `/v2/simulations?simulation_session_id=${randomUUID()}`)).total).toBe(0);
      const after = encodeURIComponent(new Date(Date.parse(joined.created_at as string) + 1).toISOString());
      expect((await ok('GET', `/v2/simulations?start_date=${after}`)).total).toBe(0);
      const p2 = await ok('GET', '/v2/simulations?page_size=1&page_number=2');
      expect(p2.pagination).toEqual({ total_records: page.total, limit: 1, offset: 1 });
      expect(p2.items.map((x: Json) => x.simulation_id)).toEqual([started.simulation_id]);
    });

    it('shows a simulation not started yet as in-progress, and finds it by that status', async () => {
      const { runs } = await t.store.simulationRuns.createSession(t.ws.id, {
        suiteId: '',
        modelId: greeter,
        maxTurns: 10,
        caseIds: [caseIds.helps!],
      });
      const waiting = await ok('GET', '/v2/simulations?status=in-progress');
      expect((waiting.items as Json[]).map((x) => [x.simulation_id, x.status])).toEqual([
        [runs[0]!.id, 'in-progress'],
      ]);
      await t.store.simulationRuns.finishRun(runs[0]!.id, {
        status: 'failed',
        passed: null,
        criteriaResults: [],
        transcript: '',
        turns: 0,
        error: 'stopped by the test',
      });
      expect((await ok('GET', '/v2/simulations?status=in-progress')).total).toBe(0);
      const failed = await ok('GET', '/v2/simulations?status=failed');
      expect(failed.items[0]).toMatchObject({ simulation_id: runs[0]!.id, error: 'stopped by the test' });
    });

    it('keeps other workspaces apart: their lists, and our ids are 404s to them', async () => {
      const theirs = await t.call({ method: 'GET', url: '/v2/simulations', key: t.other.key });
      expect(theirs.json().response.total).toBe(0);
      const sessions = await t.call({ method: 'GET', url: '/v2/simulations/sessions', key: t.other.key });
      expect(sessions.json().response.total).toBe(0);
      const otherAgent = (
        await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody(), key: t.other.key })
      ).json().response.model_id as string;
      const start = (payload: Json) =>
        t.call({ method: 'POST', url: '/v2/simulations', payload, key: t.other.key });
      expectNotFound(await start({ simulation_case_id: caseIds.helps, target_agent_id: otherAgent }));
      expectNotFound(await start({ simulation_case_id: caseIds.helps, target_agent_id: greeter }));
    });

    it('documents the operations in the OpenAPI document', async () => {
      const doc = (await t.call({ method: 'GET', url: '/v2/openapi.json', key: null })).json() as Json;
      const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
      expect(methods('/v2/simulations')).toEqual(['get', 'post']);
      expect(methods('/v2/simulations/sessions')).toEqual(['get']);
      const post = doc.paths['/v2/simulations'].post;
      expect(post.requestBody.content['application/json'].schema.required).toEqual(
        expect.arrayContaining(['simulation_case_id', 'target_agent_id']),
      );
      expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
    });

    it('refuses bad input: 400 naming the field, 404 for unknown ids', async () => {
      const start = (payload: Json) => call('POST', '/v2/simulations', payload);
      const body = { simulation_case_id: caseIds.helps, target_agent_id: greeter };
      expectFieldError(await start({ target_agent_id: greeter }), ['body', 'simulation_case_id']);
      expectFieldError(await start({ simulation_case_id: caseIds.helps }), ['body', 'target_agent_id']);
      expectFieldError(await start({ ...body, simulation_case_id: 'nope' }), ['body', 'simulation_case_id']);
      expectFieldError(await start({ ...body, simulation_session_id: 'nope' }), [
        'body',
        'simulation_session_id',
      ]);
      expectFieldError(await start({ ...body, custom_variables: { a: { b: 1 } } }), [
        'body',
        'custom_variables',
      ]);
      expectFieldError(await start({ ...body, custom_variables: 'city=Oslo' }), ['body', 'custom_variables']);
      expectFieldError(await start({ ...body, max_turns: 9 }), ['body', 'max_turns']);
      expectFieldError(await start({ ...body, actions: 'dry' }), ['body', 'actions']);
      expectNotFound(await start({ ...body, simulation_case_id: randomUUID() }));
      expectNotFound(await start({ ...body, target_agent_id: randomUUID() }));
      expectNotFound(await start({ ...body, simulation_session_id: randomUUID() }));
      // A session tests one agent, with its own max_turns.
      const session = started.simulation_session_id as string;
      expectFieldError(await start({ ...body, target_agent_id: agent, simulation_session_id: session }), [
        'body',
        'target_agent_id',
      ]);
      expectFieldError(await start({ ...body, simulation_session_id: session, max_turns: 20 }), [
        'body',
        'max_turns',
      ]);
      for (const [url, loc] of [
        ['/v2/simulations?status=done', ['query', 'status']],
        ['/v2/simulations?page_size=101', ['query', 'page_size']],
        ['/v2/simulations?page_number=0', ['query', 'page_number']],
        ['/v2/simulations?simulation_session_id=nope', ['query', 'simulation_session_id']],
        ['/v2/simulations?start_date=yesterday', ['query', 'start_date']],
        ['/v2/simulations?target_agent_id=', ['query', 'target_agent_id']],
        [
          '/v2/simulations?start_date=2026-05-02T00:00:00Z&end_date=2026-05-01T00:00:00Z',
          ['query', 'end_date'],
        ],
        ['/v2/simulations/sessions?page_size=0', ['query', 'page_size']],
        ['/v2/simulations/sessions?end_date=2026-05-01', ['query', 'end_date']],
        [
          '/v2/simulations/sessions?start_date=2026-05-02T00:00:00Z&end_date=2026-05-01T00:00:00Z',
          ['query', 'end_date'],
        ],
      ] as const) {
        expectFieldError(await call('GET', url), [...loc]);
      }
      // Nothing was started by the refused requests.
      expect((await ok('GET', `/v2/simulations?target_agent_id=${greeter}&page_size=100`)).total).toBe(3);
    });
  });

  describe('generation', () => {
    it('streams NDJSON lines as each case is made, to a real HTTP client, and stores the cases', async () => {
      await t.api.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.api.server.address() as AddressInfo).port;
      const lines: Json[] = [];
      let firstLineBeforeEnd = false;
      generationCalls = 0;
      generationGate = new Promise((resolve) => (releaseGeneration = resolve));
      await new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/v2/simulation_cases/generate',
            method: 'POST',
            headers: { authorization: `Bearer ${t.ws.key}`, 'content-type': 'application/json' },
          },
          (res) => {
            expect(res.statusCode).toBe(200);
            expect(res.headers['content-type']).toMatch(/application\/x-ndjson/);
            let buffer = '';
            res.on('data', (chunk: Buffer) => {
              buffer += chunk.toString('utf8');
              let nl = buffer.indexOf('\n');
              while (nl >= 0) {
                lines.push(JSON.parse(buffer.slice(0, nl)) as Json);
                buffer = buffer.slice(nl + 1);
                nl = buffer.indexOf('\n');
              }
              if (lines.some((l) => l.type === 'case') && !res.complete) {
                firstLineBeforeEnd = true;
                releaseGeneration();
              }
            });
            res.on('end', () => resolve());
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(
          JSON.stringify({
            agent_id: agent,
            suite_id: suite,
            count: 3,
            scenarios: ['Asks where the order is'],
          }),
        );
      });
      expect(firstLineBeforeEnd).toBe(true);
      expect(lines[0]).toEqual({ type: 'progress', done: 0, total: 3 });
      const cases = lines.filter((l) => l.type === 'case');
      expect(cases).toHaveLength(3);
      expect(lines.at(-1)).toEqual({ type: 'done', created: 3 });
      const stored = await ok('GET', `/v2/simulation_cases/${cases[0]!.simulation_case.simulation_case_id}`);
      expect(stored).toMatchObject({ suite_id: suite, base_agent_id: agent });
    });

    it('refuses an unknown agent (404), a bad body (400), and a suite of another agent (422)', async () => {
      expectNotFound(await call('POST', '/v2/simulation_cases/generate', { agent_id: randomUUID() }));
      expectFieldError(await call('POST', '/v2/simulation_cases/generate', { agent_id: agent, count: 21 }), [
        'body',
        'count',
      ]);
      const other = (await ok('POST', '/v2/assistants', agentBody({ agent: { prompt: 'Other.' } })))
        .model_id as string;
      const res = await call('POST', '/v2/simulation_cases/generate', { agent_id: other, suite_id: suite });
      expectErrorBody(res, 422, 'validation');
    });
  });
});

forEachStore('simulation runs offline', (target) => {
  it('runs a generated suite end to end with the builtin model', async () => {
    const t = await createTestApi(target, { llm: createBuiltinLLM() });
    try {
      const req = async (method: string, url: string, payload?: Json) => {
        const res = await t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
        expect(res.statusCode, res.body).toBe(200);
        return res;
      };
      const agent = (
        await req(
          'POST',
          '/v2/assistants',
          agentBody({
            agent: {
              prompt: 'You are Mia at Bright Smile Dental. Ask for their email address.',
              greeting_message: 'Bright Smile, Mia speaking.',
              end_call_reasons: ['wrong number'],
            },
          }),
        )
      ).json().response.model_id as string;
      const suite = (
        await req('POST', '/v2/simulation_suites', { name: 'Front desk', model_id: agent })
      ).json().response.id as string;
      const generated = (
        await req('POST', '/v2/simulation_cases/generate', { agent_id: agent, suite_id: suite, count: 4 })
      ).body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Json);
      expect(generated.at(-1)).toEqual({ type: 'done', created: 4 });
      const started = (
        await req('POST', `/v2/simulation_suites/${suite}/execute?target_agent_id=${agent}`)
      ).json().response;
      await t.engine.simulations.idle();
      const session = (await req('GET', `/v2/simulations/sessions/${started.session_id}`)).json()
        .response as Json;
      expect(session).toMatchObject({
        status: 'completed',
        total_simulations: 4,
        completed_simulations: 4,
        pending_simulations: 0,
      });
      for (const s of session.simulations as Json[]) {
        expect(typeof s.passed).toBe('boolean');
        expect(s.criteria_results.length).toBeGreaterThan(0);
        for (const v of s.criteria_results as Json[]) expect(v.reason).toMatch(/^Heuristic:/);
        expect(s.transcript).toMatch(/^bot: Bright Smile, Mia speaking\./);
      }
    } finally {
      await t.close();
    }
  });
});
