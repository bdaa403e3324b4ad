import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, MISSING_ID, UUID, expectErrorBody, expectFieldError, expectNotFound } from '../assertions.ts';
import { agentBody, createTestApi, createWorkspace, forEachStore, type TestApi } from '../helpers.ts';

// Simulation cases and suites through the API (WIRE.md section 7): every endpoint, the 400
// (malformed) / 422 (well-formed but impossible) / 404 (unknown) split, paging edges, search and
// filters, and tenancy: another workspace's cases, suites and agents are invisible.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CASE_KEYS = [
  'simulation_case_id',
  'workspace_id',
  'suite_id',
  'name',
  'prompt',
  'type',
  'success_criteria',
  'call_success_type',
  'base_agent_id',
  'base_agent',
  'created_at',
  'updated_at',
].sort();
const SUITE_KEYS = [
  'id',
  'name',
  'model_id',
  'workspace_id',
  'language',
  'cases',
  'case_summaries',
  'agent',
  'created_at',
  'updated_at',
].sort();

forEachStore('simulation cases and suites', (target) => {
  let t: TestApi;
  let agentA: string;
  let agentB: string;
  /** An agent of the other workspace. */
  let foreignAgent: string;

  beforeAll(async () => {
    t = await createTestApi(target);
    agentA = (await ok('POST', '/v2/assistants', agentBody({ name: 'A' }))).model_id as string;
    agentB = (await ok('POST', '/v2/assistants', agentBody({ name: 'B', type: 'chat' }))).model_id as string;
    foreignAgent = (await ok('POST', '/v2/assistants', agentBody({ name: 'X' }), t.other.key))
      .model_id as string;
  });
  afterAll(() => t.close());

  const call = (method: string, url: string, payload?: unknown, key?: string) =>
    t.call({
      method: method as 'GET',
      url,
      ...(payload !== undefined ? { payload: payload as Json } : {}),
      ...(key ? { key } : {}),
    });
  async function ok(method: string, url: string, payload?: unknown, key?: string): Promise<Json> {
    const res = await call(method, url, payload, key);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { status: string; response: Json };
    expect(body.status).toBe('ok');
    return body.response;
  }
  const caseBody = (extra: Json = {}) => ({
    name: 'Angry caller',
    prompt: 'You are angry about a late delivery.',
    success_criteria: ['The agent apologizes'],
    ...extra,
  });
  const createCase = async (extra: Json = {}, key?: string) =>
    (await ok('POST', '/v2/simulation_cases', caseBody(extra), key)).simulation_case as Json;
  const createSuite = async (extra: Json = {}, key?: string) =>
    ok('POST', '/v2/simulation_suites', { name: 'Suite', model_id: agentA, ...extra }, key);
  /** A fresh workspace, for lists whose totals must be exact. */
  const freshWorkspace = async () => {
    const w = await createWorkspace(t.store, 'lists');
    const agent = (await ok('POST', '/v2/assistants', agentBody(), w.key)).model_id as string;
    return { key: w.key, agent };
  };
  /** A 422 with the validation error body naming `loc`. */
  const expect422 = (res: Awaited<ReturnType<typeof call>>, loc: (string | number)[]) => {
    const d = expectErrorBody(res, 422, 'validation');
    const errors = d.errors as { loc: unknown[] }[];
    expect(errors.map((e) => e.loc)).toContainEqual(loc);
    expect(d.description).toContain(loc.filter((s) => typeof s === 'string').join('.'));
    return d;
  };

  describe('POST /simulation_cases', () => {
    it('creates a case with defaults and answers {simulation_case}', async () => {
      const res = await call('POST', '/v2/simulation_cases', caseBody());
      expect(res.statusCode).toBe(200);
      const body = res.json() as Json;
      expect(Object.keys(body.response)).toEqual(['simulation_case']);
      const c = body.response.simulation_case as Json;
      expect(Object.keys(c).sort()).toEqual(CASE_KEYS);
      expect(c).toMatchObject({
        workspace_id: t.ws.id,
        suite_id: null,
        name: 'Angry caller',
        prompt: 'You are angry about a late delivery.',
        type: 'custom',
        success_criteria: ['The agent apologizes'],
        call_success_type: 'all',
        base_agent_id: null,
        base_agent: null,
      });
      expect(c.simulation_case_id).toMatch(UUID);
      expect(c.created_at).toMatch(ISO);
      expect(c.updated_at).toBe(c.created_at);
      expect(await ok('GET', `/v2/simulation_cases/${c.simulation_case_id}`)).toEqual(c);
    });

    it('stores every given field', async () => {
      const suite = await createSuite();
      const c = await createCase({
        type: 'agent_based',
        call_success_type: 'any',
        success_criteria: ['a', 'b'],
        suite_id: suite.id,
        base_agent_id: agentA,
      });
      expect(c).toMatchObject({
        type: 'agent_based',
        call_success_type: 'any',
        success_criteria: ['a', 'b'],
        suite_id: suite.id,
        base_agent_id: agentA,
        base_agent: {
          model_id: agentA,
          agent_name: expect.any(String),
          agent_type: 'outbound',
          voice_engine_type: '',
          phone_number: null,
          updated_at: expect.stringMatching(ISO),
          image_url: null,
        },
      });
    });

    it('gives an agent_based case in a suite the suite agent as its base agent', async () => {
      const suite = await createSuite({ model_id: agentB });
      const c = await createCase({ type: 'agent_based', suite_id: suite.id });
      expect(c.base_agent_id).toBe(agentB);
      const custom = await createCase({ suite_id: suite.id });
      expect(custom.base_agent_id).toBeNull();
    });

    it('accepts null suite_id and base_agent_id', async () => {
      const c = await createCase({ suite_id: null, base_agent_id: null });
      expect(c).toMatchObject({ suite_id: null, base_agent_id: null });
    });

    it('refuses malformed bodies with a 400 naming the field', async () => {
      const post = (body: unknown) => call('POST', '/v2/simulation_cases', body);
      const without = (field: string) => {
        const b: Json = caseBody();
        delete b[field];
        return b;
      };
      expectFieldError(await post(without('name')), ['body', 'name']);
      expectFieldError(await post(without('prompt')), ['body', 'prompt']);
      expectFieldError(await post(without('success_criteria')), ['body', 'success_criteria']);
      expectFieldError(await post(caseBody({ name: '' })), ['body', 'name']);
      expectFieldError(await post(caseBody({ name: '   ' })), ['body', 'name']);
      expectFieldError(await post(caseBody({ prompt: '' })), ['body', 'prompt']);
      expectFieldError(await post(caseBody({ name: 5 })), ['body', 'name']);
      expectFieldError(await post(caseBody({ success_criteria: 'be nice' })), ['body', 'success_criteria']);
      expectFieldError(await post(caseBody({ success_criteria: ['ok', ''] })), [
        'body',
        'success_criteria',
        1,
      ]);
      expectFieldError(await post(caseBody({ success_criteria: ['ok', ' '] })), [
        'body',
        'success_criteria',
        1,
      ]);
      expectFieldError(await post(caseBody({ success_criteria: [3] })), ['body', 'success_criteria', 0]);
      const type = expectFieldError(await post(caseBody({ type: 'scripted' })), ['body', 'type']);
      expect(type.description).toContain('custom, agent_based');
      expectFieldError(await post(caseBody({ call_success_type: 'most' })), ['body', 'call_success_type']);
      expectFieldError(await post(caseBody({ suite_id: 'not-a-uuid' })), ['body', 'suite_id']);
      expectFieldError(await post(caseBody({ base_agent_id: 7 })), ['body', 'base_agent_id']);
      expectFieldError(await post(caseBody({ base_agent_id: '' })), ['body', 'base_agent_id']);
      expectFieldError(await post([caseBody()]), ['body']);
      const malformed = await t.call({
        method: 'POST',
        url: '/v2/simulation_cases',
        headers: { 'content-type': 'application/json' },
        payload: '{"name":',
      });
      expectFieldError(malformed, ['body']);
    });

    it('answers 422 for a well-formed case it cannot keep, naming the field', async () => {
      const post = (extra: Json) => call('POST', '/v2/simulation_cases', caseBody(extra));
      expect422(await post({ success_criteria: [] }), ['body', 'success_criteria']);
      expect422(await post({ suite_id: MISSING_ID }), ['body', 'suite_id']);
      expect422(await post({ base_agent_id: 'no-such-agent' }), ['body', 'base_agent_id']);
      expect422(await post({ base_agent_id: foreignAgent }), ['body', 'base_agent_id']);
      const suite = await createSuite({ model_id: agentA });
      const mismatch = expect422(await post({ suite_id: suite.id, base_agent_id: agentB }), [
        'body',
        'suite_id',
      ]);
      expect(mismatch.description).toContain(agentA);
      expect422(await post({ type: 'agent_based' }), ['body', 'base_agent_id']);
      const foreignSuite = await createSuite({ model_id: foreignAgent }, t.other.key);
      expect422(await post({ suite_id: foreignSuite.id }), ['body', 'suite_id']);
      // Every problem at once.
      const all = expect422(await post({ success_criteria: [], suite_id: MISSING_ID }), [
        'body',
        'success_criteria',
      ]);
      expect((all.errors as unknown[]).length).toBe(2);
    });
  });

  describe('GET /simulation_cases', () => {
    it('pages newest first with {items,total,page_number,page_size}, 10 by default', async () => {
      const w = await freshWorkspace();
      for (let i = 0; i < 12; i++) await createCase({ name: `case ${i}` }, w.key);
      const first = await ok('GET', '/v2/simulation_cases', undefined, w.key);
      expect(Object.keys(first).sort()).toEqual(['items', 'page_number', 'page_size', 'pagination', 'total']);
      expect(first).toMatchObject({ total: 12, page_number: 1, page_size: 10 });
      expect(first.pagination).toEqual({ total_records: 12, limit: 10, offset: 0 });
      expect(first.items).toHaveLength(10);
      expect(first.items[0].name).toBe('case 11');
      expect(Object.keys(first.items[0]).sort()).toEqual(CASE_KEYS);
      const second = await ok('GET', '/v2/simulation_cases?page_number=2&page_size=10', undefined, w.key);
      expect(second.items.map((c: Json) => c.name)).toEqual(['case 1', 'case 0']);
      const exact = await ok('GET', '/v2/simulation_cases?page_number=3&page_size=5', undefined, w.key);
      expect(exact.items.map((c: Json) => c.name)).toEqual(['case 1', 'case 0']);
      const beyond = await ok('GET', '/v2/simulation_cases?page_number=99&page_size=100', undefined, w.key);
      expect(beyond).toEqual({
        pagination: { total_records: 12, limit: 100, offset: 9800 },
        items: [],
        total: 12,
        page_number: 99,
        page_size: 100,
      });
      const one = await ok('GET', '/v2/simulation_cases?page_size=1', undefined, w.key);
      expect(one.items.map((c: Json) => c.name)).toEqual(['case 11']);
    });

    it('refuses out-of-range or malformed paging with a 400', async () => {
      for (const [query, field] of [
        ['page_number=0', 'page_number'],
        ['page_number=-1', 'page_number'],
        ['page_number=abc', 'page_number'],
        ['page_number=1.5', 'page_number'],
        ['page_size=0', 'page_size'],
        ['page_size=101', 'page_size'],
        ['page_size=x', 'page_size'],
      ] as const) {
        expectFieldError(await call('GET', `/v2/simulation_cases?${query}`), ['query', field]);
      }
    });

    it('searches names case-insensitively, wildcards taken literally', async () => {
      const w = await freshWorkspace();
      for (const name of ['Angry Caller', 'angry_customer', 'Happy caller', '100% sure', 'Ünïcode ÇASE'])
        await createCase({ name }, w.key);
      const names = async (q: string) =>
        ((await ok('GET', `/v2/simulation_cases?${q}`, undefined, w.key)).items as Json[])
          .map((c) => c.name)
          .sort();
      expect(await names('search=ANGRY')).toEqual(['Angry Caller', 'angry_customer']);
      expect(await names('search=caller')).toEqual(['Angry Caller', 'Happy caller']);
      expect(await names('search=_')).toEqual(['angry_customer']);
      expect(await names(`search=${encodeURIComponent('%')}`)).toEqual(['100% sure']);
      expect(await names(`search=${encodeURIComponent('ünïcode ç')}`)).toEqual(['Ünïcode ÇASE']);
      expect(await names('search=')).toHaveLength(5);
      expect(await names('search=zzz')).toEqual([]);
      const page = await ok('GET', '/v2/simulation_cases?search=angry&page_size=1', undefined, w.key);
      expect(page.total).toBe(2);
    });

    it('filters by simulation_case_type and suite_id', async () => {
      const w = await freshWorkspace();
      const suite = await createSuite({ model_id: w.agent }, w.key);
      await createCase({ name: 'in suite', suite_id: suite.id }, w.key);
      await createCase({ name: 'based', type: 'agent_based', base_agent_id: w.agent }, w.key);
      await createCase({ name: 'based in suite', type: 'agent_based', suite_id: suite.id }, w.key);
      const names = async (q: string) =>
        ((await ok('GET', `/v2/simulation_cases?${q}`, undefined, w.key)).items as Json[]).map((c) => c.name);
      expect(await names('simulation_case_type=agent_based')).toEqual(['based in suite', 'based']);
      expect(await names('simulation_case_type=custom')).toEqual(['in suite']);
      expect(await names(`suite_id=${suite.id}`)).toEqual(['based in suite', 'in suite']);
      expect(await names(`suite_id=${suite.id}&simulation_case_type=custom`)).toEqual(['in suite']);
      expect(await names(`suite_id=${MISSING_ID}`)).toEqual([]);
      expectFieldError(await call('GET', '/v2/simulation_cases?simulation_case_type=other'), [
        'query',
        'simulation_case_type',
      ]);
      expectFieldError(await call('GET', '/v2/simulation_cases?suite_id=nope'), ['query', 'suite_id']);
    });

    it("never lists another workspace's cases", async () => {
      const theirs = await createCase({ name: 'their secret case' }, t.other.key);
      const page = await ok('GET', '/v2/simulation_cases?search=their%20secret&page_size=100');
      expect(page.total).toBe(0);
      const ownPage = await ok('GET', '/v2/simulation_cases?page_size=100', undefined, t.other.key);
      expect(ownPage.items.map((c: Json) => c.simulation_case_id)).toContain(theirs.simulation_case_id);
    });
  });

  describe('GET, PUT, DELETE /simulation_cases/{id}', () => {
    it('answers 400 for a malformed id and 404 for an unknown or foreign one', async () => {
      const theirs = await createCase({}, t.other.key);
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const body = method === 'PUT' ? { name: 'x' } : undefined;
        expectFieldError(await call(method, '/v2/simulation_cases/not-a-uuid', body), [
          'path',
          'simulation_case_id',
        ]);
        expectNotFound(await call(method, `/v2/simulation_cases/${MISSING_ID}`, body));
        expectNotFound(await call(method, `/v2/simulation_cases/${theirs.simulation_case_id}`, body));
      }
      // Still there for its owner.
      await ok('GET', `/v2/simulation_cases/${theirs.simulation_case_id}`, undefined, t.other.key);
    });

    it('PUT merges the given fields and answers the case', async () => {
      const c = await createCase({ success_criteria: ['one'] });
      await sleep(5);
      const url = `/v2/simulation_cases/${c.simulation_case_id}`;
      const updated = await ok('PUT', url, { name: 'Renamed', call_success_type: 'any' });
      expect(updated).toMatchObject({
        simulation_case_id: c.simulation_case_id,
        name: 'Renamed',
        call_success_type: 'any',
        prompt: c.prompt,
        success_criteria: ['one'],
        type: 'custom',
        created_at: c.created_at,
      });
      expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(c.updated_at));
      expect(await ok('GET', url)).toEqual(updated);

      const suite = await createSuite({ model_id: agentB });
      const moved = await ok('PUT', url, {
        suite_id: suite.id,
        type: 'agent_based',
        success_criteria: ['x', 'y'],
      });
      expect(moved).toMatchObject({
        suite_id: suite.id,
        base_agent_id: agentB,
        success_criteria: ['x', 'y'],
      });
      const out = await ok('PUT', url, { suite_id: null, type: 'custom', base_agent_id: null });
      expect(out).toMatchObject({ suite_id: null, base_agent_id: null, type: 'custom' });
      expect(await ok('PUT', url, {})).toMatchObject({ name: 'Renamed', suite_id: null });
    });

    it('PUT refuses malformed fields (400) and impossible ones (422)', async () => {
      const c = await createCase({ base_agent_id: agentA });
      const put = (body: unknown) => call('PUT', `/v2/simulation_cases/${c.simulation_case_id}`, body);
      expectFieldError(await put({ name: '' }), ['body', 'name']);
      expectFieldError(await put({ name: '  ' }), ['body', 'name']);
      expectFieldError(await put({ type: 'x' }), ['body', 'type']);
      expectFieldError(await put({ success_criteria: [''] }), ['body', 'success_criteria', 0]);
      expectFieldError(await put({ suite_id: 'x' }), ['body', 'suite_id']);
      expectFieldError(await put({ call_success_type: 1 }), ['body', 'call_success_type']);
      expect422(await put({ success_criteria: [] }), ['body', 'success_criteria']);
      expect422(await put({ suite_id: MISSING_ID }), ['body', 'suite_id']);
      expect422(await put({ base_agent_id: foreignAgent }), ['body', 'base_agent_id']);
      const other = await createSuite({ model_id: agentB });
      // The stored base agent (A) does not match the suite's agent (B).
      expect422(await put({ suite_id: other.id }), ['body', 'suite_id']);
      const mine = await createSuite({ model_id: agentA });
      await ok('PUT', `/v2/simulation_cases/${c.simulation_case_id}`, { suite_id: mine.id });
      // Now in A's suite: moving the base agent to B is refused, naming base_agent_id.
      expect422(await put({ base_agent_id: agentB }), ['body', 'base_agent_id']);
      expect422(await put({ type: 'agent_based', base_agent_id: null, suite_id: null }), [
        'body',
        'base_agent_id',
      ]);
      // Nothing changed.
      expect(await ok('GET', `/v2/simulation_cases/${c.simulation_case_id}`)).toMatchObject({
        suite_id: mine.id,
        base_agent_id: agentA,
        success_criteria: ['The agent apologizes'],
      });
    });

    it('DELETE answers 204 with no body, then the case is gone', async () => {
      const c = await createCase();
      const url = `/v2/simulation_cases/${c.simulation_case_id}`;
      const res = await call('DELETE', url);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expectNotFound(await call('GET', url));
      expectNotFound(await call('DELETE', url));
    });
  });

  describe('GET /simulation_cases/by_agent', () => {
    it('lists the cases based on the agent or in its suites, newest first, as an array', async () => {
      const w = await freshWorkspace();
      const second = (await ok('POST', '/v2/assistants', agentBody(), w.key)).model_id as string;
      const suite = await createSuite({ model_id: w.agent }, w.key);
      const otherSuite = await createSuite({ model_id: second }, w.key);
      const based = await createCase({ name: 'based', base_agent_id: w.agent }, w.key);
      const inSuite = await createCase({ name: 'in suite', suite_id: suite.id }, w.key);
      await createCase({ name: 'other agent', suite_id: otherSuite.id }, w.key);
      await createCase({ name: 'loose' }, w.key);
      const res = await call('GET', `/v2/simulation_cases/by_agent?agent_id=${w.agent}`, undefined, w.key);
      expect(res.statusCode).toBe(200);
      const body = res.json() as Json;
      expect(body.status).toBe('ok');
      expect(Array.isArray(body.response)).toBe(true);
      expect(body.response.map((c: Json) => c.simulation_case_id)).toEqual([
        inSuite.simulation_case_id,
        based.simulation_case_id,
      ]);
      expect(Object.keys(body.response[0]).sort()).toEqual(CASE_KEYS);
      const none = (await ok('POST', '/v2/assistants', agentBody(), w.key)).model_id as string;
      expect(await ok('GET', `/v2/simulation_cases/by_agent?agent_id=${none}`, undefined, w.key)).toEqual([]);
    });

    it('needs agent_id (400) of an agent of the workspace (400 not_found)', async () => {
      expectFieldError(await call('GET', '/v2/simulation_cases/by_agent'), ['query', 'agent_id']);
      expectFieldError(await call('GET', '/v2/simulation_cases/by_agent?agent_id='), ['query', 'agent_id']);
      expectNotFound(await call('GET', '/v2/simulation_cases/by_agent?agent_id=nobody'), 400);
      expectNotFound(await call('GET', `/v2/simulation_cases/by_agent?agent_id=${foreignAgent}`), 400);
    });
  });

  describe('POST /simulation_suites', () => {
    it('creates a suite attached to the agent, en-US by default, with no cases', async () => {
      const s = await createSuite({ name: 'Smoke tests' });
      expect(Object.keys(s).sort()).toEqual(SUITE_KEYS);
      expect(s).toMatchObject({
        name: 'Smoke tests',
        model_id: agentA,
        workspace_id: t.ws.id,
        language: 'en-US',
        cases: [],
        case_summaries: [],
        agent: { id: agentA, name: expect.any(String), avatar: null },
      });
      expect(s.id).toMatch(UUID);
      expect(s.created_at).toMatch(ISO);
      expect(await ok('GET', `/v2/simulation_suites/${s.id}`)).toEqual(s);
    });

    it('moves the given cases into the suite (out of any other)', async () => {
      const old = await createSuite();
      const a = await createCase({ name: 'a', suite_id: old.id });
      const b = await createCase({ name: 'b', base_agent_id: agentA });
      const s = await createSuite({
        language: 'fr-FR',
        case_ids: [b.simulation_case_id, a.simulation_case_id, b.simulation_case_id],
      });
      expect(s.language).toBe('fr-FR');
      expect(s.cases.map((c: Json) => c.name)).toEqual(['a', 'b']);
      expect(s.cases.every((c: Json) => c.suite_id === s.id)).toBe(true);
      expect((await ok('GET', `/v2/simulation_suites/${old.id}`)).cases).toEqual([]);
    });

    it('refuses bad input with a 400 naming the field, creating nothing', async () => {
      const post = (body: unknown) => call('POST', '/v2/simulation_suites', body);
      expectFieldError(await post({ model_id: agentA }), ['body', 'name']);
      expectFieldError(await post({ name: '', model_id: agentA }), ['body', 'name']);
      expectFieldError(await post({ name: '  ', model_id: agentA }), ['body', 'name']);
      expectFieldError(await post({ name: 's' }), ['body', 'model_id']);
      expectFieldError(await post({ name: 's', model_id: 3 }), ['body', 'model_id']);
      expectFieldError(await post({ name: 's', model_id: agentA, language: '' }), ['body', 'language']);
      expectFieldError(await post({ name: 's', model_id: agentA, case_ids: ['x'] }), ['body', 'case_ids', 0]);
      expectFieldError(await post({ name: 's', model_id: agentA, case_ids: 'x' }), ['body', 'case_ids']);
      for (const model of ['nobody', foreignAgent]) {
        const d = expectNotFound(await post({ name: 's', model_id: model }), 400);
        expect(d.description).toContain('body.model_id');
      }
      const mine = await createCase();
      const d = expectNotFound(
        await post({ name: 's', model_id: agentA, case_ids: [mine.simulation_case_id, MISSING_ID] }),
        400,
      );
      expect(d.description).toContain('body.case_ids[1]');
      const theirs = await createCase({}, t.other.key);
      expectNotFound(await post({ name: 's', model_id: agentA, case_ids: [theirs.simulation_case_id] }), 400);
      const forB = await createCase({ base_agent_id: agentB });
      expectFieldError(
        await post({
          name: 's',
          model_id: agentA,
          case_ids: [mine.simulation_case_id, forB.simulation_case_id],
        }),
        ['body', 'case_ids', 1],
      );
      // The refused requests moved nothing.
      expect((await ok('GET', `/v2/simulation_cases/${mine.simulation_case_id}`)).suite_id).toBeNull();
    });
  });

  describe('GET /simulation_suites', () => {
    it('pages newest first, each suite with its cases; 400 out of range', async () => {
      const w = await freshWorkspace();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await createSuite({ name: `s${i}`, model_id: w.agent }, w.key)).id);
      await createCase({ name: 'c', suite_id: ids[1] }, w.key);
      const page = await ok('GET', '/v2/simulation_suites?page_size=2', undefined, w.key);
      expect(Object.keys(page).sort()).toEqual(['items', 'page_number', 'page_size', 'total']);
      expect(page).toMatchObject({ total: 3, page_number: 1, page_size: 2 });
      expect(page.items.map((s: Json) => s.name)).toEqual(['s2', 's1']);
      expect(page.items[1].cases.map((c: Json) => c.name)).toEqual(['c']);
      expect(page.items[0].cases).toEqual([]);
      const last = await ok('GET', '/v2/simulation_suites?page_size=2&page_number=2', undefined, w.key);
      expect(last.items.map((s: Json) => s.name)).toEqual(['s0']);
      const defaults = await ok('GET', '/v2/simulation_suites', undefined, w.key);
      expect(defaults).toMatchObject({ total: 3, page_number: 1, page_size: 10 });
      for (const [query, field] of [
        ['page_number=0', 'page_number'],
        ['page_size=0', 'page_size'],
        ['page_size=101', 'page_size'],
        ['page_number=x', 'page_number'],
      ] as const) {
        expectFieldError(await call('GET', `/v2/simulation_suites?${query}`), ['query', field]);
      }
    });

    it('searches names and filters by model_ids (repeated or comma-separated)', async () => {
      const w = await freshWorkspace();
      const b = (await ok('POST', '/v2/assistants', agentBody(), w.key)).model_id as string;
      const c = (await ok('POST', '/v2/assistants', agentBody(), w.key)).model_id as string;
      await createSuite({ name: 'Billing flows', model_id: w.agent }, w.key);
      await createSuite({ name: 'Booking', model_id: b }, w.key);
      await createSuite({ name: 'BILLING 100%', model_id: c }, w.key);
      const names = async (q: string) =>
        ((await ok('GET', `/v2/simulation_suites?${q}`, undefined, w.key)).items as Json[]).map(
          (s) => s.name,
        );
      expect(await names('search=billing')).toEqual(['BILLING 100%', 'Billing flows']);
      expect(await names(`search=${encodeURIComponent('0%')}`)).toEqual(['BILLING 100%']);
      expect(await names(`model_ids=${b}`)).toEqual(['Booking']);
      expect(await names(`model_ids=${b}&model_ids=${w.agent}`)).toEqual(['Booking', 'Billing flows']);
      expect(await names(`model_ids=${b},${c}`)).toEqual(['BILLING 100%', 'Booking']);
      expect(await names(`model_ids=${b},${c}&model_ids=${w.agent}`)).toHaveLength(3);
      expect(await names(`model_ids=${b}&search=billing`)).toEqual([]);
      expect(await names('model_ids=unknown')).toEqual([]);
      expect(await names('model_ids=')).toHaveLength(3);
    });

    it('filters on created_at with start_date and end_date (ISO date-times)', async () => {
      const w = await freshWorkspace();
      const made: Json[] = [];
      for (let i = 0; i < 3; i++) {
        made.push(await createSuite({ name: `s${i}`, model_id: w.agent }, w.key));
        await sleep(5);
      }
      const names = async (q: string) =>
        ((await ok('GET', `/v2/simulation_suites?${q}`, undefined, w.key)).items as Json[]).map(
          (s) => s.name,
        );
      const at = (i: number) => encodeURIComponent(made[i]!.created_at as string);
      expect(await names(`start_date=${at(1)}`)).toEqual(['s2', 's1']);
      expect(await names(`end_date=${at(1)}`)).toEqual(['s1', 's0']);
      expect(await names(`start_date=${at(1)}&end_date=${at(1)}`)).toEqual(['s1']);
      expect(await names('start_date=2000-01-01T00:00:00Z&end_date=2000-01-02T00:00:00%2B02:00')).toEqual([]);
      expectFieldError(await call('GET', '/v2/simulation_suites?start_date=yesterday'), [
        'query',
        'start_date',
      ]);
      expectFieldError(await call('GET', '/v2/simulation_suites?end_date=2026-13-01T00:00:00Z'), [
        'query',
        'end_date',
      ]);
      expectFieldError(
        await call(
          'GET',
          '/v2/simulation_suites?start_date=2026-01-02T00:00:00Z&end_date=2026-01-01T00:00:00Z',
        ),
        ['query', 'end_date'],
      );
    });

    it("never lists another workspace's suites", async () => {
      await createSuite({ name: 'their private suite', model_id: foreignAgent }, t.other.key);
      const page = await ok('GET', '/v2/simulation_suites?search=their%20private');
      expect(page.total).toBe(0);
      const own = await ok('GET', `/v2/simulation_suites?model_ids=${foreignAgent}`);
      expect(own.total).toBe(0);
    });
  });

  describe('GET, PUT, DELETE /simulation_suites/{id}', () => {
    it('answers 400 for a malformed id and 404 for an unknown or foreign one', async () => {
      const theirs = await createSuite({ model_id: foreignAgent }, t.other.key);
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const body = method === 'PUT' ? { name: 'x' } : undefined;
        expectFieldError(await call(method, '/v2/simulation_suites/123', body), ['path', 'suite_id']);
        expectNotFound(await call(method, `/v2/simulation_suites/${MISSING_ID}`, body));
        expectNotFound(await call(method, `/v2/simulation_suites/${theirs.id}`, body));
      }
      await ok('GET', `/v2/simulation_suites/${theirs.id}`, undefined, t.other.key);
    });

    it('PUT changes name and language; the agent stays', async () => {
      const s = await createSuite({ name: 'Before' });
      const c = await createCase({ suite_id: s.id });
      await sleep(5);
      const url = `/v2/simulation_suites/${s.id}`;
      const updated = await ok('PUT', url, { name: 'After', language: 'de-DE', model_id: agentA });
      expect(updated).toMatchObject({ id: s.id, name: 'After', language: 'de-DE', model_id: agentA });
      expect(updated.cases.map((x: Json) => x.simulation_case_id)).toEqual([c.simulation_case_id]);
      expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(s.updated_at));
      expect(await ok('GET', url)).toEqual(updated);
      expect(await ok('PUT', url, {})).toMatchObject({ name: 'After', language: 'de-DE' });

      expectFieldError(await call('PUT', url, { model_id: agentB }), ['body', 'model_id']);
      expectFieldError(await call('PUT', url, { name: '' }), ['body', 'name']);
      expectFieldError(await call('PUT', url, { name: ' ' }), ['body', 'name']);
      expectFieldError(await call('PUT', url, { language: 5 }), ['body', 'language']);
      expect((await ok('GET', url)).model_id).toBe(agentA);
    });

    it('DELETE answers 204 with no body and deletes the cases with the suite', async () => {
      const s = await createSuite();
      const inside = await createCase({ suite_id: s.id });
      const outside = await createCase();
      const res = await call('DELETE', `/v2/simulation_suites/${s.id}`);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expectNotFound(await call('GET', `/v2/simulation_suites/${s.id}`));
      expectNotFound(await call('DELETE', `/v2/simulation_suites/${s.id}`));
      expectNotFound(await call('GET', `/v2/simulation_cases/${inside.simulation_case_id}`));
      await ok('GET', `/v2/simulation_cases/${outside.simulation_case_id}`);
    });
  });

  it('needs a key on every operation', async () => {
    for (const [method, url] of [
      ['POST', '/v2/simulation_cases'],
      ['GET', '/v2/simulation_cases'],
      ['GET', `/v2/simulation_cases/${MISSING_ID}`],
      ['GET', '/v2/simulation_cases/by_agent?agent_id=x'],
      ['POST', '/v2/simulation_suites'],
      ['GET', '/v2/simulation_suites'],
      ['DELETE', `/v2/simulation_suites/${MISSING_ID}`],
    ]) {
      expectErrorBody(await t.call({ method: method as 'GET', url: url!, key: null }), 401, 'auth');
    }
  });

  it('documents every operation in the OpenAPI document', async () => {
    const doc = (await t.call({ method: 'GET', url: '/v2/openapi.json', key: null })).json() as Json;
    const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(methods('/v2/simulation_cases')).toEqual(['get', 'post']);
    expect(methods('/v2/simulation_cases/{simulation_case_id}')).toEqual(['delete', 'get', 'put']);
    expect(methods('/v2/simulation_cases/by_agent')).toEqual(['get']);
    expect(methods('/v2/simulation_suites')).toEqual(['get', 'post']);
    expect(methods('/v2/simulation_suites/{suite_id}')).toEqual(['delete', 'get', 'put']);
    const post = doc.paths['/v2/simulation_cases'].post;
    expect(Object.keys(post.responses).sort()).toEqual(['200', '400', '401', '422']);
    expect(post.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['name', 'prompt', 'success_criteria']),
    );
    expect(Object.keys(doc.paths['/v2/simulation_suites/{suite_id}'].delete.responses)).toContain('204');
  });
});
