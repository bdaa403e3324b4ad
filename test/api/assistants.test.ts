import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_MODEL, createManualClock, effectiveModel, type ManualClock } from '../../src/core/index.ts';
import { agentBody, createTestApi, createWorkspace, forEachStore, type TestApi } from '../helpers.ts';
import {
  expectErrorBody,
  expectFieldError,
  expectNotFound,
  type Json,
  type Loc,
  MISSING_ID,
  type Payload,
  UUID,
} from '../assertions.ts';

// The agent resource (spec "Agents", WIRE.md sections 1-3), end to end through the HTTP layer
// over a real store, once per dialect.

forEachStore('agents API', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let numberSeq = 0;

  beforeAll(async () => {
    clock = createManualClock(Date.UTC(2026, 4, 1, 12));
    t = await createTestApi(target, { clock });
  });
  afterAll(() => t.close());

  /** A fresh, unused US number: `{ e164, slug, spaced }`. */
  function freshNumber() {
    numberSeq += 1;
    const line = String(1000 + numberSeq).padStart(4, '0');
    return { e164: `+1415555${line}`, slug: `1415555${line}`, spaced: `+1 415 555 ${line}` };
  }

  async function importNumber(e164: string, key?: string): Promise<string> {
    const res = await t.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: { phone_number: e164, provider: 'sim' },
      key,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response.sid as string;
  }

  async function createAgent(overrides: Json = {}, key?: string): Promise<string> {
    const res = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody(overrides), key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response.model_id as string;
  }

  async function getAgent(id: string, key?: string): Promise<Json> {
    const res = await t.call({ method: 'GET', url: `/v2/assistants/${id}`, key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response.assistants[0] as Json;
  }

  const create = (payload: Payload) => t.call({ method: 'POST', url: '/v2/assistants', payload });
  const update = (id: string, payload: Payload, key?: string) =>
    t.call({ method: 'PUT', url: `/v2/assistants/${id}`, payload, key });
  const attach = (id: string, payload: Payload, key?: string) =>
    t.call({ method: 'PUT', url: `/v2/assistants/${id}/phone_numbers`, payload, key });
  const detach = (id: string, slug: string, key?: string) =>
    t.call({ method: 'DELETE', url: `/v2/assistants/${id}/phone_numbers/${slug}`, key });

  describe('create', () => {
    it('answers 200 with model_id and details', async () => {
      const res = await create(agentBody());
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual({
        status: 'ok',
        response: { model_id: expect.stringMatching(UUID) },
        details: { phone: '', voice: '' },
      });
      expect(res.headers['x-request-id']).toBeTruthy();
    });

    it('gives every agent its own id', async () => {
      const a = await createAgent();
      const b = await createAgent();
      expect(a).not.toBe(b);
    });

    it('reports the voice in details', async () => {
      const res = await create(agentBody({ agent: { prompt: 'p', voice_id: 'voice-42' } }));
      expect(res.statusCode).toBe(200);
      expect(res.json().details).toEqual({ phone: '', voice: 'voice-42' });
    });

    it('stores the defaults of the agent object', async () => {
      const id = await createAgent({ agent: { prompt: 'Hello {name}' } });
      const agent = await getAgent(id);
      expect(agent.agent).toEqual({
        prompt: 'Hello {name}',
        greeting_message_mode: 'agent_static',
        language: 'en-US',
        timezone: 'UTC',
      });
    });

    it('keeps given values over the defaults', async () => {
      const id = await createAgent({
        agent: { greeting_message_mode: 'human', language: 'fr-FR', timezone: 'Europe/Paris' },
      });
      expect((await getAgent(id)).agent).toEqual({
        greeting_message_mode: 'human',
        language: 'fr-FR',
        timezone: 'Europe/Paris',
      });
    });

    it('keeps and echoes unknown keys inside agent', async () => {
      const extra = { vendor_flag: true, nested: { a: [1, 'two', null] }, tuning: 0.25 };
      const id = await createAgent({ agent: { prompt: 'p', ...extra } });
      expect((await getAgent(id)).agent).toMatchObject(extra);
    });

    it('ignores unknown top-level fields', async () => {
      const res = await create(agentBody({ colour: 'blue', workspace_id: t.other.id, model_id: 'mine' }));
      expect(res.statusCode, res.body).toBe(200);
      const id = res.json().response.model_id as string;
      expect(id).not.toBe('mine');
      const agent = await getAgent(id);
      expect(agent).not.toHaveProperty('colour');
      expect(agent).not.toHaveProperty('workspace_id');
      // The agent belongs to the caller's workspace, not the one named in the body.
      const other = await t.call({ method: 'GET', url: `/v2/assistants/${id}`, key: t.other.key });
      expect(other.statusCode).toBe(400);
    });

    it('normalizes phone_number and attaches it when the workspace owns it', async () => {
      const n = freshNumber();
      const sid = await importNumber(n.e164);
      const res = await create(agentBody({ phone_number: n.spaced }));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().details).toEqual({ phone: n.e164, voice: '' });
      const agent = await getAgent(res.json().response.model_id as string);
      expect(agent.phone_number).toBe(n.e164);
      expect(agent.attached_phone_numbers).toEqual([{ number: n.e164, sid, slug: n.slug }]);
    });

    it('accepts phone_number written without the plus', async () => {
      const n = freshNumber();
      await importNumber(n.e164);
      const res = await create(agentBody({ phone_number: n.slug }));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().details.phone).toBe(n.e164);
    });

    it('stores but does not attach a phone_number the workspace does not own', async () => {
      const n = freshNumber();
      const res = await create(agentBody({ phone_number: n.spaced }));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().details.phone).toBe('');
      const agent = await getAgent(res.json().response.model_id as string);
      expect(agent.phone_number).toBe(n.e164);
      expect(agent.attached_phone_numbers).toEqual([]);
    });

    it("does not attach another workspace's number", async () => {
      const n = freshNumber();
      await importNumber(n.e164, t.other.key);
      const res = await create(agentBody({ phone_number: n.e164 }));
      expect(res.statusCode).toBe(200);
      expect(res.json().details.phone).toBe('');
      expect((await getAgent(res.json().response.model_id as string)).attached_phone_numbers).toEqual([]);
    });

    it.each(['not a number', '+1 23', '+999 1234 5678', '12'])('refuses phone_number %j', async (bad) => {
      expectFieldError(await create(agentBody({ phone_number: bad })), ['body', 'phone_number']);
    });

    it('refuses a phone_number that is not a string', async () => {
      expectFieldError(await create(agentBody({ phone_number: 14155550100 })), ['body', 'phone_number']);
    });

    it('stores and echoes every accepted field', async () => {
      const payload = {
        type: 'inbound',
        name: 'Front desk',
        description: 'Answers the main line',
        external_webhook_url: 'https://hooks.example.com/post-call',
        inbound_call_webhook_url: 'http://hooks.example.com/inbound',
        is_recording: true,
        max_duration: { duration_seconds: 900, is_enabled: true },
        voicemail_message: { enabled: false, mode: 'prompt', prompt: 'Leave a short note' },
        end_call_reasons: ['caller is rude'],
        agent: {
          prompt: 'You are {agent_name}.',
          greeting_message: 'Hi!',
          greeting_message_mode: 'agent_dynamic',
          greeting_message_human_talk_timeout: 5,
          llm: 'gpt-4o',
          language: 'de-DE',
          voice_id: 'v-1',
          timezone: 'America/New_York',
          voice_style: 0.35,
          voice_stability: 0.5,
          voice_similarity_boost: 0.75,
          voice_speed: 1.1,
          voice_volume: 0.9,
          transcriber_keywords: ['Parley', 'SIP'],
          suppression_level: 0.2,
          redact_pii: true,
          min_words_to_interrupt: '3',
          allowed_idle_time_seconds: 30,
          send_user_idle_reminders: true,
          reminder_after_idle_time_seconds: 10,
          reminder_after_idle_message: 'Are you there?',
          patience_level: 'high',
          end_call_reasons: ['done'],
          end_call_reasons_v2: [
            { reason: 'caller says bye', closing_message_mode: 'static', closing_message: 'Bye!' },
            { reason: 'wrong number', closing_message_mode: 'none' },
          ],
          interruption_fade_out: 10,
          initial_pause_seconds: 2,
          ring_pause_seconds: 3,
          background_noise: { enabled: true, type: 'cafe', volume: 35 },
          synthesizer_filter_words: ['um', 'uh'],
        },
      };
      const res = await create(payload);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().details).toEqual({ phone: '', voice: 'v-1' });
      const agent = await getAgent(res.json().response.model_id as string);
      expect(agent).toMatchObject({ ...payload, phone_number: '' });
      expect(agent.agent).toEqual(payload.agent);
    });
  });

  describe('create errors', () => {
    it.each(['type', 'name', 'agent'])('names a missing %s in description and errors', async (field) => {
      const body = agentBody();
      delete body[field];
      expectFieldError(await create(body), ['body', field]);
    });

    it('names every missing field at once', async () => {
      const d = expectErrorBody(await create({}), 400, 'validation');
      const locs = (d.errors as { loc: Loc }[]).map((e) => e.loc);
      for (const field of ['type', 'name', 'agent']) {
        expect(locs).toContainEqual(['body', field]);
        expect(d.description).toContain(`body.${field}`);
      }
    });

    it.each<[string, Json, Loc]>([
      ['name as a number', { name: 5 }, ['body', 'name']],
      ['empty name', { name: '' }, ['body', 'name']],
      ['agent as a string', { agent: 'x' }, ['body', 'agent']],
      ['is_recording as a string', { is_recording: 'yes' }, ['body', 'is_recording']],
      ['is_recording as a number', { is_recording: 1 }, ['body', 'is_recording']],
      ['description as a number', { description: 7 }, ['body', 'description']],
      ['unknown type', { type: 'robot' }, ['body', 'type']],
      ['type in the wrong case', { type: 'Outbound' }, ['body', 'type']],
      [
        'unknown greeting_message_mode',
        { agent: { greeting_message_mode: 'loud' } },
        ['body', 'agent', 'greeting_message_mode'],
      ],
      [
        'min_words_to_interrupt as a number',
        { agent: { min_words_to_interrupt: 2 } },
        ['body', 'agent', 'min_words_to_interrupt'],
      ],
      [
        'min_words_to_interrupt out of range',
        { agent: { min_words_to_interrupt: '6' } },
        ['body', 'agent', 'min_words_to_interrupt'],
      ],
      [
        'unknown patience_level',
        { agent: { patience_level: 'extreme' } },
        ['body', 'agent', 'patience_level'],
      ],
      ['voice_speed as a string', { agent: { voice_speed: '1.2' } }, ['body', 'agent', 'voice_speed']],
      ['redact_pii as a string', { agent: { redact_pii: 'true' } }, ['body', 'agent', 'redact_pii']],
      [
        'transcriber_keywords with a number',
        { agent: { transcriber_keywords: ['ok', 3] } },
        ['body', 'agent', 'transcriber_keywords', 1],
      ],
      [
        'end_call_reasons_v2 without reason',
        { agent: { end_call_reasons_v2: [{ closing_message_mode: 'static' }] } },
        ['body', 'agent', 'end_call_reasons_v2', 0, 'reason'],
      ],
      [
        'unknown closing_message_mode',
        { agent: { end_call_reasons_v2: [{ reason: 'x', closing_message_mode: 'loud' }] } },
        ['body', 'agent', 'end_call_reasons_v2', 0, 'closing_message_mode'],
      ],
      [
        'non-http external_webhook_url',
        { external_webhook_url: 'ftp://example.com/hook' },
        ['body', 'external_webhook_url'],
      ],
      ['relative external_webhook_url', { external_webhook_url: '/hook' }, ['body', 'external_webhook_url']],
      [
        'javascript inbound_call_webhook_url',
        { inbound_call_webhook_url: 'javascript:alert(1)' },
        ['body', 'inbound_call_webhook_url'],
      ],
      ['invalid timezone', { agent: { timezone: 'Mars/Olympus_Mons' } }, ['body', 'agent', 'timezone']],
      ['empty timezone', { agent: { timezone: '' } }, ['body', 'agent', 'timezone']],
      [
        'duration_seconds 0 while enabled',
        { max_duration: { duration_seconds: 0, is_enabled: true } },
        ['body', 'max_duration', 'duration_seconds'],
      ],
      [
        'duration_seconds over a day',
        { max_duration: { duration_seconds: 86_401 } },
        ['body', 'max_duration', 'duration_seconds'],
      ],
      [
        'fractional duration_seconds',
        { max_duration: { duration_seconds: 1.5 } },
        ['body', 'max_duration', 'duration_seconds'],
      ],
      [
        'duration_seconds as a string',
        { max_duration: { duration_seconds: '60' } },
        ['body', 'max_duration', 'duration_seconds'],
      ],
      [
        'unknown voicemail mode',
        { voicemail_message: { mode: 'sing' } },
        ['body', 'voicemail_message', 'mode'],
      ],
      [
        'interruption_fade_out over 50 frames',
        { agent: { interruption_fade_out: 51 } },
        ['body', 'agent', 'interruption_fade_out'],
      ],
      [
        'fractional interruption_fade_out',
        { agent: { interruption_fade_out: 2.5 } },
        ['body', 'agent', 'interruption_fade_out'],
      ],
      [
        'negative initial_pause_seconds',
        { agent: { initial_pause_seconds: -1 } },
        ['body', 'agent', 'initial_pause_seconds'],
      ],
      [
        'initial_pause_seconds over a minute',
        { agent: { initial_pause_seconds: 61 } },
        ['body', 'agent', 'initial_pause_seconds'],
      ],
      [
        'ring_pause_seconds as a string',
        { agent: { ring_pause_seconds: '2' } },
        ['body', 'agent', 'ring_pause_seconds'],
      ],
      [
        'ring_pause_seconds over a minute',
        { agent: { ring_pause_seconds: 61 } },
        ['body', 'agent', 'ring_pause_seconds'],
      ],
      [
        'unknown background_noise type',
        { agent: { background_noise: { enabled: true, type: 'street', volume: 10 } } },
        ['body', 'agent', 'background_noise', 'type'],
      ],
      [
        'background_noise volume over 100',
        { agent: { background_noise: { enabled: true, type: 'office', volume: 101 } } },
        ['body', 'agent', 'background_noise', 'volume'],
      ],
      [
        'background_noise enabled as a string',
        { agent: { background_noise: { enabled: 'yes' } } },
        ['body', 'agent', 'background_noise', 'enabled'],
      ],
      [
        'background_noise as a boolean',
        { agent: { background_noise: true } },
        ['body', 'agent', 'background_noise'],
      ],
      [
        'synthesizer_filter_words with a number',
        { agent: { synthesizer_filter_words: ['um', 1] } },
        ['body', 'agent', 'synthesizer_filter_words', 1],
      ],
      [
        'synthesizer_filter_words as a string',
        { agent: { synthesizer_filter_words: 'um' } },
        ['body', 'agent', 'synthesizer_filter_words'],
      ],
    ])('refuses %s', async (_label, overrides, loc) => {
      const before = await t.call({ method: 'GET', url: '/v2/assistants?limit=1' });
      const res = await create(agentBody(overrides));
      expectFieldError(res, loc);
      const after = await t.call({ method: 'GET', url: '/v2/assistants?limit=1' });
      expect(after.json().response.pagination.total_records).toBe(
        before.json().response.pagination.total_records,
      );
    });

    it('names several bad fields in one answer', async () => {
      const d = expectErrorBody(
        await create({ type: 'outbound', name: 5, agent: { patience_level: 'x' }, is_recording: 'yes' }),
        400,
        'validation',
      );
      const locs = (d.errors as { loc: Loc }[]).map((e) => e.loc);
      expect(locs).toContainEqual(['body', 'name']);
      expect(locs).toContainEqual(['body', 'agent', 'patience_level']);
      expect(locs).toContainEqual(['body', 'is_recording']);
    });

    it('lists the allowed values of an enum', async () => {
      const d = expectFieldError(await create(agentBody({ type: 'robot' })), ['body', 'type']);
      for (const v of ['outbound', 'inbound', 'widget', 'chat']) expect(d.description).toContain(v);
    });

    it('accepts the edge values of the voice settings', async () => {
      for (const edge of [0, 1] as const) {
        const agent = {
          prompt: 'p',
          interruption_fade_out: edge * 50,
          initial_pause_seconds: edge * 60,
          ring_pause_seconds: edge * 60,
          background_noise: { enabled: edge === 1, type: edge ? 'office' : 'cafe', volume: edge * 100 },
          synthesizer_filter_words: edge ? ['um'] : [],
        };
        const res = await create(agentBody({ agent }));
        expect(res.statusCode, res.body).toBe(200);
        expect((await getAgent(res.json().response.model_id as string)).agent).toMatchObject(agent);
      }
    });

    it('accepts the edge values of duration_seconds and every agent type', async () => {
      for (const [type, seconds] of [
        ['outbound', 1],
        ['inbound', 86_400],
        ['widget', 60],
        ['chat', 60],
      ] as const) {
        const res = await create(agentBody({ type, max_duration: { duration_seconds: seconds } }));
        expect(res.statusCode, res.body).toBe(200);
        const agent = await getAgent(res.json().response.model_id as string);
        expect(agent.type).toBe(type);
        expect(agent.max_duration).toEqual({ duration_seconds: seconds });
      }
    });

    it('answers 400 for malformed JSON with the error body', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        headers: { 'content-type': 'application/json' },
        payload: '{"type": "outbound",',
      });
      expectErrorBody(res, 400, 'validation');
    });

    it('echoes a caller-chosen x-request-id as request_id', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        headers: { 'x-request-id': 'client-req-123' },
        payload: {},
      });
      const d = expectErrorBody(res, 400, 'validation');
      expect(d.request_id).toBe('client-req-123');
    });
  });

  describe('get', () => {
    it('answers a one-element page with every read field', async () => {
      const before = clock.now();
      const id = await createAgent({ name: 'Reader', agent: { prompt: 'Read me' } });
      const res = await t.call({ method: 'GET', url: `/v2/assistants/${id}` });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.status).toBe('ok');
      expect(Object.keys(body.response).sort()).toEqual(['assistants', 'pagination']);
      expect(body.response.pagination).toEqual({ total_records: 1, limit: 1, offset: 0 });
      expect(body.response.assistants).toHaveLength(1);
      expect(body.response.assistants[0]).toEqual({
        model_id: id,
        type: 'outbound',
        name: 'Reader',
        description: '',
        agent: {
          prompt: 'Read me',
          greeting_message_mode: 'agent_static',
          language: 'en-US',
          timezone: 'UTC',
        },
        phone_number: '',
        external_webhook_url: '',
        inbound_call_webhook_url: '',
        is_recording: false,
        max_duration: { is_enabled: false },
        voicemail_message: { enabled: false },
        end_call_reasons: [],
        knowledge_base_id: null,
        live_version_id: null, // a Parley addition (docs/agent-versions.md)
        attached_phone_numbers: [],
        actions: [],
        input_variables: [],
        created_at: new Date(before).toISOString(),
        updated_at: new Date(before).toISOString(),
      });
    });

    it.each(['true', 'false'])('accepts include_actions=%s', async (value) => {
      const id = await createAgent();
      const res = await t.call({ method: 'GET', url: `/v2/assistants/${id}?include_actions=${value}` });
      expect(res.statusCode, res.body).toBe(200);
      const agent = res.json().response.assistants[0];
      expect(agent.model_id).toBe(id);
      expect(agent.actions).toEqual([]);
      expect(agent.input_variables).toEqual([]);
    });

    it.each(['maybe', 'yes', '1', 'TRUE!'])('refuses include_actions=%j', async (value) => {
      const id = await createAgent();
      const res = await t.call({ method: 'GET', url: `/v2/assistants/${id}?include_actions=${value}` });
      expectFieldError(res, ['query', 'include_actions']);
    });

    it.each([MISSING_ID, 'not-a-uuid'])('answers 400 not_found for unknown id %s', async (id) => {
      const d = expectNotFound(await t.call({ method: 'GET', url: `/v2/assistants/${id}` }), 400);
      expect(d.description).toContain(id);
    });
  });

  describe('list', () => {
    let key: string;
    const names: string[] = [];

    beforeAll(async () => {
      key = (await createWorkspace(t.store, 'lister')).key;
      for (let i = 0; i < 25; i += 1) {
        const name = `agent-${String(i).padStart(2, '0')}`;
        names.push(name);
        await createAgent({ name }, key);
      }
    });

    const list = (query = '', path = '/v2/assistants/') =>
      t.call({ method: 'GET', url: `${path}${query}`, key });
    const newestFirst = () => [...names].reverse();

    it('lists newest first with a default limit of 20', async () => {
      const res = await list();
      expect(res.statusCode).toBe(200);
      const { pagination, assistants } = res.json().response;
      expect(pagination).toEqual({ total_records: 25, limit: 20, offset: 0 });
      expect(assistants.map((a: Json) => a.name)).toEqual(newestFirst().slice(0, 20));
    });

    it('gives the rest on the second page', async () => {
      const { pagination, assistants } = (await list('?offset=20')).json().response;
      expect(pagination).toEqual({ total_records: 25, limit: 20, offset: 20 });
      expect(assistants.map((a: Json) => a.name)).toEqual(newestFirst().slice(20));
    });

    it.each([25, 26, 1000])('answers an empty page at offset %i with the real total', async (offset) => {
      const res = await list(`?offset=${offset}`);
      expect(res.statusCode).toBe(200);
      expect(res.json().response).toEqual({
        pagination: { total_records: 25, limit: 20, offset },
        assistants: [],
      });
    });

    it('echoes limit and offset', async () => {
      const { pagination, assistants } = (await list('?limit=7&offset=3')).json().response;
      expect(pagination).toEqual({ total_records: 25, limit: 7, offset: 3 });
      expect(assistants.map((a: Json) => a.name)).toEqual(newestFirst().slice(3, 10));
    });

    it('accepts limit 1 and 1000', async () => {
      const one = (await list('?limit=1')).json().response;
      expect(one.assistants.map((a: Json) => a.name)).toEqual(['agent-24']);
      const all = (await list('?limit=1000')).json().response;
      expect(all.pagination.limit).toBe(1000);
      expect(all.assistants).toHaveLength(25);
    });

    it('works with and without the trailing slash', async () => {
      const a = await list('?limit=5', '/v2/assistants/');
      const b = await list('?limit=5', '/v2/assistants');
      expect(a.statusCode).toBe(200);
      expect(b.statusCode).toBe(200);
      expect(b.json().response).toEqual(a.json().response);
    });

    it('lists full agent records', async () => {
      const [first] = (await list('?limit=1')).json().response.assistants as Json[];
      const single = await getAgent(first!.model_id as string, key);
      expect(first).toEqual(single);
    });

    it.each<[string, string]>([
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=-5', 'limit'],
      ['?limit=2.5', 'limit'],
      ['?offset=-1', 'offset'],
      ['?offset=abc', 'offset'],
    ])('refuses %s naming %s', async (query, field) => {
      expectFieldError(await list(query), ['query', field]);
    });

    it("does not list another workspace's agents", async () => {
      const res = await list();
      const ids = (res.json().response.assistants as Json[]).map((a) => a.model_id);
      const mine = await createAgent();
      expect(ids).not.toContain(mine);
      const again = (await list('?limit=1000')).json().response;
      expect(again.pagination.total_records).toBe(25);
      expect((again.assistants as Json[]).map((a) => a.model_id)).not.toContain(mine);
    });
  });

  describe('update', () => {
    it('merges agent key by key and answers like create', async () => {
      const id = await createAgent({
        agent: { prompt: 'Old prompt', language: 'fr-FR', voice_id: 'v1', vendor_extra: { keep: true } },
      });
      const res = await update(id, { agent: { voice_id: 'v2', patience_level: 'low' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        status: 'ok',
        response: { model_id: id },
        details: { phone: '', voice: 'v2' },
      });
      expect((await getAgent(id)).agent).toEqual({
        prompt: 'Old prompt',
        language: 'fr-FR',
        voice_id: 'v2',
        patience_level: 'low',
        vendor_extra: { keep: true },
        greeting_message_mode: 'agent_static',
        timezone: 'UTC',
      });
    });

    it('keeps every field the body does not name', async () => {
      const id = await createAgent({
        description: 'desc',
        is_recording: true,
        external_webhook_url: 'https://example.com/h',
        inbound_call_webhook_url: 'https://example.com/in',
        end_call_reasons: ['r1'],
        max_duration: { duration_seconds: 120, is_enabled: true },
      });
      const before = await getAgent(id);
      const res = await update(id, { name: 'Renamed' });
      expect(res.statusCode, res.body).toBe(200);
      const after = await getAgent(id);
      expect(after.name).toBe('Renamed');
      const { name: _a, updated_at: _b, ...restAfter } = after;
      const { name: _c, updated_at: _d, ...restBefore } = before;
      expect(restAfter).toEqual(restBefore);
    });

    it('replaces the top-level fields it names', async () => {
      const id = await createAgent({ description: 'old', is_recording: true, end_call_reasons: ['a'] });
      const res = await update(id, {
        description: 'new',
        is_recording: false,
        end_call_reasons: ['b', 'c'],
        external_webhook_url: 'http://example.com/new',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(await getAgent(id)).toMatchObject({
        description: 'new',
        is_recording: false,
        end_call_reasons: ['b', 'c'],
        external_webhook_url: 'http://example.com/new',
      });
    });

    it('merges max_duration key by key', async () => {
      const id = await createAgent({ max_duration: { duration_seconds: 600, is_enabled: true } });
      expect((await update(id, { max_duration: { is_enabled: false } })).statusCode).toBe(200);
      expect((await getAgent(id)).max_duration).toEqual({ duration_seconds: 600, is_enabled: false });
      expect((await update(id, { max_duration: { duration_seconds: 30 } })).statusCode).toBe(200);
      expect((await getAgent(id)).max_duration).toEqual({ duration_seconds: 30, is_enabled: false });
    });

    it('adds max_duration to an agent that had none', async () => {
      const id = await createAgent();
      expect((await update(id, { max_duration: { is_enabled: true } })).statusCode).toBe(200);
      expect((await getAgent(id)).max_duration).toEqual({ is_enabled: true });
    });

    it('merges voicemail_message key by key', async () => {
      const id = await createAgent({
        agent: { greeting_message_mode: 'human' },
        voicemail_message: { enabled: true, mode: 'exact_message', exact_message: 'Call us back' },
      });
      const res = await update(id, { voicemail_message: { exact_message: 'Please call back' } });
      expect(res.statusCode, res.body).toBe(200);
      expect((await getAgent(id)).voicemail_message).toEqual({
        enabled: true,
        mode: 'exact_message',
        exact_message: 'Please call back',
      });
    });

    it('changes the name and moves updated_at', async () => {
      const id = await createAgent({ name: 'Before' });
      const created = await getAgent(id);
      clock.advance(5_000);
      const res = await update(id, { name: 'After' });
      expect(res.statusCode).toBe(200);
      const after = await getAgent(id);
      expect(after.name).toBe('After');
      expect(after.created_at).toBe(created.created_at);
      expect(Date.parse(after.updated_at as string)).toBe(Date.parse(created.updated_at as string) + 5_000);
    });

    it('accepts an empty body and changes nothing but updated_at', async () => {
      const id = await createAgent();
      const before = await getAgent(id);
      clock.advance(1_000);
      expect((await update(id, {})).statusCode).toBe(200);
      const after = await getAgent(id);
      expect({ ...after, updated_at: before.updated_at }).toEqual(before);
    });

    it.each<[string, unknown]>([
      ['type', 'inbound'],
      ['inbound_call_webhook_url', 'https://example.com/inbound'],
    ])('refuses %s on update and changes nothing', async (field, value) => {
      const id = await createAgent({ name: 'Fixed' });
      const before = await getAgent(id);
      clock.advance(1_000);
      const res = await update(id, { name: 'Changed', agent: { prompt: 'changed' }, [field]: value });
      const d = expectFieldError(res, ['body', field]);
      expect(d.description).toContain('not accepted on update');
      expect(await getAgent(id)).toEqual(before);
    });

    it('refuses type on update even when it is the current type', async () => {
      const id = await createAgent({ type: 'outbound' });
      expectFieldError(await update(id, { type: 'outbound' }), ['body', 'type']);
    });

    it.each<[string, Json, Loc]>([
      ['name as a number', { name: 5 }, ['body', 'name']],
      ['empty name', { name: '' }, ['body', 'name']],
      ['agent as a string', { agent: 'x' }, ['body', 'agent']],
      ['is_recording as a string', { is_recording: 'yes' }, ['body', 'is_recording']],
      ['invalid timezone', { agent: { timezone: 'Nowhere/Land' } }, ['body', 'agent', 'timezone']],
      ['unknown patience_level', { agent: { patience_level: 'zen' } }, ['body', 'agent', 'patience_level']],
      ['non-http webhook', { external_webhook_url: 'mailto:a@b.c' }, ['body', 'external_webhook_url']],
      [
        'duration_seconds 0 while enabled',
        { max_duration: { duration_seconds: 0, is_enabled: true } },
        ['body', 'max_duration', 'duration_seconds'],
      ],
      ['bad phone_number', { phone_number: 'abc' }, ['body', 'phone_number']],
    ])('refuses %s and changes nothing', async (_label, payload, loc) => {
      const id = await createAgent();
      const before = await getAgent(id);
      expectFieldError(await update(id, payload), loc);
      expect(await getAgent(id)).toEqual(before);
    });

    it('keeps a disabled duration_seconds 0, and refuses enabling it until a length is given', async () => {
      const id = await createAgent({ max_duration: { duration_seconds: 0, is_enabled: false } });
      expect((await getAgent(id)).max_duration).toEqual({ duration_seconds: 0, is_enabled: false });
      expectFieldError(await update(id, { max_duration: { is_enabled: true } }), [
        'body',
        'max_duration',
        'duration_seconds',
      ]);
      expect(
        (await update(id, { max_duration: { is_enabled: true, duration_seconds: 60 } })).statusCode,
      ).toBe(200);
      expect((await getAgent(id)).max_duration).toEqual({ duration_seconds: 60, is_enabled: true });
    });

    it.each([MISSING_ID, 'nope'])('answers 400 not_found for unknown id %s', async (id) => {
      expectNotFound(await update(id, { name: 'x' }), 400);
    });

    it('refuses a bad voice setting on update, naming it, and changes nothing', async () => {
      const id = await createAgent({ agent: { prompt: 'p', interruption_fade_out: 4 } });
      expectFieldError(await update(id, { agent: { interruption_fade_out: 100 } }), [
        'body',
        'agent',
        'interruption_fade_out',
      ]);
      expectFieldError(await update(id, { agent: { background_noise: { type: 'street' } } }), [
        'body',
        'agent',
        'background_noise',
        'type',
      ]);
      expect((await getAgent(id)).agent).toMatchObject({ interruption_fade_out: 4 });
      expect((await getAgent(id)).agent).not.toHaveProperty('background_noise');
    });

    it('validates the body before looking up the agent', async () => {
      expectFieldError(await update(MISSING_ID, { name: 5 }), ['body', 'name']);
    });

    it('attaches a newly set phone_number the workspace owns', async () => {
      const n = freshNumber();
      const sid = await importNumber(n.e164);
      const id = await createAgent();
      const res = await update(id, { phone_number: n.spaced });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().details.phone).toBe(n.e164);
      const agent = await getAgent(id);
      expect(agent.phone_number).toBe(n.e164);
      expect(agent.attached_phone_numbers).toEqual([{ number: n.e164, sid, slug: n.slug }]);
    });

    it('keeps attached numbers when the update does not name phone_number', async () => {
      const n = freshNumber();
      const sid = await importNumber(n.e164);
      const id = await createAgent({ phone_number: n.e164 });
      const res = await update(id, { name: 'Still attached', agent: { prompt: 'x' } });
      expect(res.statusCode).toBe(200);
      const agent = await getAgent(id);
      expect(agent.phone_number).toBe(n.e164);
      expect(agent.attached_phone_numbers).toEqual([{ number: n.e164, sid, slug: n.slug }]);
    });

    it('stores without attaching a newly set phone_number it does not own', async () => {
      const n = freshNumber();
      const id = await createAgent();
      const res = await update(id, { phone_number: n.e164 });
      expect(res.statusCode).toBe(200);
      expect(res.json().details.phone).toBe('');
      const agent = await getAgent(id);
      expect(agent.phone_number).toBe(n.e164);
      expect(agent.attached_phone_numbers).toEqual([]);
    });
  });

  describe('voicemail rule', () => {
    const human = { greeting_message_mode: 'human' };
    const voicemailOn = { enabled: true, mode: 'exact_message', exact_message: 'Sorry we missed you' };

    it.each(['agent_static', 'agent_dynamic', undefined])(
      'refuses voicemail enabled on create with mode %s',
      async (mode) => {
        const res = await create(
          agentBody({ agent: mode ? { greeting_message_mode: mode } : {}, voicemail_message: voicemailOn }),
        );
        const d = expectFieldError(res, ['body', 'voicemail_message', 'enabled']);
        expect(d.description).toContain('human');
      },
    );

    it('accepts voicemail enabled on create with mode human and an exact message', async () => {
      const res = await create(agentBody({ agent: human, voicemail_message: voicemailOn }));
      expect(res.statusCode, res.body).toBe(200);
      const agent = await getAgent(res.json().response.model_id as string);
      expect(agent.voicemail_message).toEqual(voicemailOn);
      expect((agent.agent as Json).greeting_message_mode).toBe('human');
    });

    it('accepts voicemail in prompt mode with a prompt', async () => {
      const vm = { enabled: true, mode: 'prompt', prompt: 'Say who called' };
      const res = await create(agentBody({ agent: human, voicemail_message: vm }));
      expect(res.statusCode, res.body).toBe(200);
    });

    it('accepts a disabled voicemail on any mode', async () => {
      const res = await create(
        agentBody({
          agent: { greeting_message_mode: 'agent_static' },
          voicemail_message: { enabled: false },
        }),
      );
      expect(res.statusCode, res.body).toBe(200);
    });

    it.each<[string, Json, Loc]>([
      [
        'empty exact_message',
        { enabled: true, exact_message: '' },
        ['body', 'voicemail_message', 'exact_message'],
      ],
      [
        'no exact_message',
        { enabled: true, mode: 'exact_message' },
        ['body', 'voicemail_message', 'exact_message'],
      ],
      [
        'prompt mode without prompt',
        { enabled: true, mode: 'prompt' },
        ['body', 'voicemail_message', 'prompt'],
      ],
    ])('refuses voicemail enabled with %s', async (_label, vm, loc) => {
      expectFieldError(await create(agentBody({ agent: human, voicemail_message: vm })), loc);
    });

    it('refuses moving greeting_message_mode away from human while voicemail is enabled', async () => {
      const id = await createAgent({ agent: { ...human, prompt: 'keep' }, voicemail_message: voicemailOn });
      const before = await getAgent(id);
      for (const mode of ['agent_static', 'agent_dynamic']) {
        const res = await update(id, { agent: { greeting_message_mode: mode }, name: 'renamed' });
        const d = expectFieldError(res, ['body', 'agent', 'greeting_message_mode']);
        expect(d.description).toContain('voicemail');
      }
      expect(await getAgent(id)).toEqual(before);
    });

    it('names greeting_message_mode when the same update only edits the voicemail text', async () => {
      const id = await createAgent({ agent: human, voicemail_message: voicemailOn });
      const before = await getAgent(id);
      const res = await update(id, {
        agent: { greeting_message_mode: 'agent_dynamic' },
        voicemail_message: { exact_message: 'New text' },
      });
      expectFieldError(res, ['body', 'agent', 'greeting_message_mode']);
      expect(await getAgent(id)).toEqual(before);
    });

    it('names voicemail_message.enabled when one update enables voicemail and leaves human mode', async () => {
      const id = await createAgent({ agent: human });
      const res = await update(id, {
        agent: { greeting_message_mode: 'agent_static' },
        voicemail_message: voicemailOn,
      });
      expectFieldError(res, ['body', 'voicemail_message', 'enabled']);
    });

    it('allows leaving human mode when the same update disables voicemail', async () => {
      const id = await createAgent({ agent: human, voicemail_message: voicemailOn });
      const res = await update(id, {
        agent: { greeting_message_mode: 'agent_static' },
        voicemail_message: { enabled: false },
      });
      expect(res.statusCode, res.body).toBe(200);
      const agent = await getAgent(id);
      expect((agent.agent as Json).greeting_message_mode).toBe('agent_static');
      expect(agent.voicemail_message).toEqual({ ...voicemailOn, enabled: false });
    });

    it('refuses enabling voicemail on a non-human agent and changes nothing', async () => {
      const id = await createAgent();
      const before = await getAgent(id);
      const res = await update(id, { voicemail_message: voicemailOn });
      expectFieldError(res, ['body', 'voicemail_message', 'enabled']);
      expect(await getAgent(id)).toEqual(before);
    });

    it('allows enabling voicemail together with switching to human', async () => {
      const id = await createAgent();
      const res = await update(id, { agent: human, voicemail_message: voicemailOn });
      expect(res.statusCode, res.body).toBe(200);
      expect((await getAgent(id)).voicemail_message).toEqual(voicemailOn);
    });

    it('refuses emptying the exact message of an enabled voicemail', async () => {
      const id = await createAgent({ agent: human, voicemail_message: voicemailOn });
      const before = await getAgent(id);
      expectFieldError(await update(id, { voicemail_message: { exact_message: '' } }), [
        'body',
        'voicemail_message',
        'exact_message',
      ]);
      expect(await getAgent(id)).toEqual(before);
    });

    it('allows other agent changes while voicemail is enabled', async () => {
      const id = await createAgent({ agent: human, voicemail_message: voicemailOn });
      const res = await update(id, { agent: { prompt: 'new', greeting_message_mode: 'human' } });
      expect(res.statusCode, res.body).toBe(200);
    });
  });

  describe('llm and plans', () => {
    it('stores and echoes llm on an enterprise workspace; the agent runs on it', async () => {
      const id = await createAgent({ agent: { prompt: 'p', llm: 'gpt-4o-2024-08-06' } });
      const agent = await getAgent(id);
      const llm = (agent.agent as Json).llm as string;
      expect(llm).toBe('gpt-4o-2024-08-06');
      const ws = await t.store.workspaces.get(t.ws.id);
      expect(ws?.plan).toBe('enterprise');
      expect(effectiveModel(llm, ws!.plan)).toBe('gpt-4o-2024-08-06');
    });

    it('stores and echoes llm on a standard workspace; the agent runs on the platform model', async () => {
      const std = await createWorkspace(t.store, 'std', 'standard');
      const res = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        key: std.key,
        payload: agentBody({ agent: { prompt: 'p', llm: 'claude-3-5-sonnet' } }),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        status: 'ok',
        response: { model_id: expect.stringMatching(UUID) },
        details: { phone: '', voice: '' },
      });
      const id = res.json().response.model_id as string;
      const agent = await getAgent(id, std.key);
      const llm = (agent.agent as Json).llm as string;
      expect(llm).toBe('claude-3-5-sonnet');
      const ws = await t.store.workspaces.get(std.id);
      expect(ws?.plan).toBe('standard');
      expect(effectiveModel(llm, ws!.plan)).toBe(PLATFORM_MODEL);

      const upd = await t.call({
        method: 'PUT',
        url: `/v2/assistants/${id}`,
        key: std.key,
        payload: { agent: { llm: 'gpt-4.1' } },
      });
      expect(upd.statusCode, upd.body).toBe(200);
      expect(((await getAgent(id, std.key)).agent as Json).llm).toBe('gpt-4.1');
    });

    it('runs on the platform model when no llm is given, whatever the plan', () => {
      expect(effectiveModel(undefined, 'enterprise')).toBe(PLATFORM_MODEL);
      expect(effectiveModel(undefined, 'standard')).toBe(PLATFORM_MODEL);
    });

    it.each<[string, unknown]>([
      ['empty', ''],
      ['a number', 4],
    ])('refuses an llm that is %s', async (_label, llm) => {
      expectFieldError(await create(agentBody({ agent: { llm } })), ['body', 'agent', 'llm']);
    });
  });

  describe('delete', () => {
    it('deletes, then the agent is gone', async () => {
      const id = await createAgent();
      const res = await t.call({ method: 'DELETE', url: `/v2/assistants/${id}` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', response: { answer: 'Agent deleted' } });
      expectNotFound(await t.call({ method: 'GET', url: `/v2/assistants/${id}` }), 400);
      expectNotFound(await update(id, { name: 'x' }), 400);
      expectNotFound(await t.call({ method: 'DELETE', url: `/v2/assistants/${id}` }), 400);
    });

    it('drops the agent from lists and from its numbers', async () => {
      const n = freshNumber();
      await importNumber(n.e164);
      const id = await createAgent({ phone_number: n.e164 });
      const number = await t.call({ method: 'GET', url: `/v2/numbers/${n.slug}` });
      expect(number.json().response.attached_agents).toEqual([id]);
      expect((await t.call({ method: 'DELETE', url: `/v2/assistants/${id}` })).statusCode).toBe(200);
      const list = (await t.call({ method: 'GET', url: '/v2/assistants?limit=1000' })).json().response;
      expect((list.assistants as Json[]).map((a) => a.model_id)).not.toContain(id);
      const after = await t.call({ method: 'GET', url: `/v2/numbers/${n.slug}` });
      expect(after.statusCode).toBe(200);
      expect(after.json().response.attached_agents).toEqual([]);
    });

    it('answers 400 not_found for an unknown id', async () => {
      expectNotFound(await t.call({ method: 'DELETE', url: `/v2/assistants/${MISSING_ID}` }), 400);
    });
  });

  describe('phone number attach', () => {
    let a: { e164: string; slug: string; spaced: string };
    let b: { e164: string; slug: string; spaced: string };
    let sidA: string;
    let sidB: string;

    beforeAll(async () => {
      a = freshNumber();
      b = freshNumber();
      sidA = await importNumber(a.e164);
      sidB = await importNumber(b.e164);
    });

    it('attaches by number in any formatting with a country code', async () => {
      for (const written of [
        (n: typeof a) => n.spaced,
        (n: typeof a) => n.e164,
        (n: typeof a) => n.slug,
        (n: typeof a) => `+1 (${n.slug.slice(1, 4)}) ${n.slug.slice(4, 7)}-${n.slug.slice(7)}`,
        (n: typeof a) => `1-${n.slug.slice(1, 4)}-${n.slug.slice(4, 7)}-${n.slug.slice(7)}`,
      ]) {
        const id = await createAgent();
        const res = await attach(id, { phone_numbers: [written(a)] });
        expect(res.statusCode, `${written(a)}: ${res.body}`).toBe(200);
        expect(res.json()).toEqual({ status: 'ok' });
        expect((await getAgent(id)).attached_phone_numbers).toEqual([
          { number: a.e164, sid: sidA, slug: a.slug },
        ]);
      }
    });

    it('attaches by slug, with or without the plus', async () => {
      const id = await createAgent();
      const res = await attach(id, { phone_number_slugs: [b.slug] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
      expect((await getAgent(id)).attached_phone_numbers).toEqual([
        { number: b.e164, sid: sidB, slug: b.slug },
      ]);
      const id2 = await createAgent();
      expect((await attach(id2, { phone_number_slugs: [`+${a.slug}`] })).statusCode).toBe(200);
      expect((await getAgent(id2)).attached_phone_numbers).toEqual([
        { number: a.e164, sid: sidA, slug: a.slug },
      ]);
    });

    it('attaches several, by numbers and slugs together, and is idempotent', async () => {
      const id = await createAgent();
      const first = await attach(id, { phone_numbers: [a.e164], phone_number_slugs: [b.slug] });
      expect(first.statusCode, first.body).toBe(200);
      const expected = [
        { number: a.e164, sid: sidA, slug: a.slug },
        { number: b.e164, sid: sidB, slug: b.slug },
      ];
      const sortBySlug = (xs: Json[]) => [...xs].sort((x, y) => String(x.slug).localeCompare(String(y.slug)));
      expect(sortBySlug((await getAgent(id)).attached_phone_numbers as Json[])).toEqual(expected);

      const again = await attach(id, { phone_numbers: [a.spaced, a.e164], phone_number_slugs: [b.slug] });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toEqual({ status: 'ok' });
      expect(sortBySlug((await getAgent(id)).attached_phone_numbers as Json[])).toEqual(expected);
    });

    it('adds to the numbers already attached', async () => {
      const id = await createAgent();
      expect((await attach(id, { phone_numbers: [a.e164] })).statusCode).toBe(200);
      expect((await attach(id, { phone_numbers: [b.e164] })).statusCode).toBe(200);
      const slugs = ((await getAgent(id)).attached_phone_numbers as Json[]).map((n) => n.slug);
      expect(slugs.sort()).toEqual([a.slug, b.slug].sort());
    });

    it('shows the attachment on the number and in lists', async () => {
      const id = await createAgent();
      expect((await attach(id, { phone_numbers: [b.e164] })).statusCode).toBe(200);
      const number = (await t.call({ method: 'GET', url: `/v2/numbers/${b.slug}` })).json().response;
      expect(number.attached_agents).toContain(id);
      const list = (await t.call({ method: 'GET', url: '/v2/assistants?limit=1' })).json().response;
      expect(list.assistants[0].model_id).toBe(id);
      expect(list.assistants[0].attached_phone_numbers).toEqual([
        { number: b.e164, sid: sidB, slug: b.slug },
      ]);
    });

    it('answers 404 for a number not in the inventory, attaching nothing', async () => {
      const missing = freshNumber();
      const id = await createAgent();
      const res = await attach(id, { phone_numbers: [a.e164, missing.e164] });
      const d = expectNotFound(res, 404);
      expect(d.description).toContain(missing.e164);
      expect((await getAgent(id)).attached_phone_numbers).toEqual([]);

      const bySlug = await attach(id, { phone_number_slugs: [b.slug, missing.slug] });
      expectNotFound(bySlug, 404);
      expect((await getAgent(id)).attached_phone_numbers).toEqual([]);
    });

    it("answers 404 for another workspace's number", async () => {
      const theirs = freshNumber();
      await importNumber(theirs.e164, t.other.key);
      const id = await createAgent();
      expectNotFound(await attach(id, { phone_numbers: [theirs.e164] }), 404);
      expect((await getAgent(id)).attached_phone_numbers).toEqual([]);
    });

    it('answers 404 for an unknown agent', async () => {
      expectNotFound(await attach(MISSING_ID, { phone_numbers: [a.e164] }), 404);
    });

    it.each<[string, Json, Loc]>([
      ['an empty body', {}, ['body', 'phone_numbers']],
      ['an empty list', { phone_numbers: [] }, ['body', 'phone_numbers']],
      ['an empty slug list', { phone_number_slugs: [] }, ['body', 'phone_number_slugs']],
      ['a malformed number', { phone_numbers: ['call me'] }, ['body', 'phone_numbers', 0]],
      ['a number without a possible length', { phone_numbers: ['+1 555'] }, ['body', 'phone_numbers', 0]],
      ['a number that is not a string', { phone_numbers: [14155550100] }, ['body', 'phone_numbers', 0]],
      ['phone_numbers as a string', { phone_numbers: '+14155550100' }, ['body', 'phone_numbers']],
    ])('answers 400 for %s', async (_label, payload, loc) => {
      const id = await createAgent();
      expectFieldError(await attach(id, payload), loc);
      expect((await getAgent(id)).attached_phone_numbers).toEqual([]);
    });

    it('answers 400 naming the index of a malformed number among good ones', async () => {
      const id = await createAgent();
      expectFieldError(await attach(id, { phone_numbers: [a.e164, 'nope'] }), ['body', 'phone_numbers', 1]);
      expect((await getAgent(id)).attached_phone_numbers).toEqual([]);
    });

    it('answers 400, not 500, when the body is missing', async () => {
      const id = await createAgent();
      const res = await t.call({ method: 'PUT', url: `/v2/assistants/${id}/phone_numbers` });
      expectErrorBody(res, 400, 'validation');
    });
  });

  describe('phone number detach', () => {
    it('detaches one number, then answers 404 when it is no longer attached', async () => {
      const a = freshNumber();
      const b = freshNumber();
      await importNumber(a.e164);
      const sidB = await importNumber(b.e164);
      const id = await createAgent();
      expect((await attach(id, { phone_numbers: [a.e164, b.e164] })).statusCode).toBe(200);

      const res = await detach(id, a.slug);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
      expect((await getAgent(id)).attached_phone_numbers).toEqual([
        { number: b.e164, sid: sidB, slug: b.slug },
      ]);
      // The number stays in the inventory.
      expect((await t.call({ method: 'GET', url: `/v2/numbers/${a.slug}` })).statusCode).toBe(200);

      expectNotFound(await detach(id, a.slug), 404);
    });

    it('accepts the slug with a URL-encoded plus', async () => {
      const a = freshNumber();
      await importNumber(a.e164);
      const id = await createAgent();
      expect((await attach(id, { phone_numbers: [a.e164] })).statusCode).toBe(200);
      expect((await detach(id, `%2B${a.slug}`)).statusCode).toBe(200);
      expect((await getAgent(id)).attached_phone_numbers).toEqual([]);
    });

    it('answers 404 for a number attached to another agent only, leaving it attached there', async () => {
      const a = freshNumber();
      await importNumber(a.e164);
      const owner = await createAgent();
      const bystander = await createAgent();
      expect((await attach(owner, { phone_numbers: [a.e164] })).statusCode).toBe(200);
      expectNotFound(await detach(bystander, a.slug), 404);
      expect((await getAgent(owner)).attached_phone_numbers).toHaveLength(1);
    });

    it('answers 404 for a number not in the inventory', async () => {
      const id = await createAgent();
      expectNotFound(await detach(id, freshNumber().slug), 404);
    });

    it('answers 404 for an unknown agent', async () => {
      const a = freshNumber();
      await importNumber(a.e164);
      expectNotFound(await detach(MISSING_ID, a.slug), 404);
    });
  });

  describe('tenant isolation', () => {
    let id: string;
    let n: { e164: string; slug: string; spaced: string };
    let before: Json;

    beforeAll(async () => {
      n = freshNumber();
      await importNumber(n.e164);
      id = await createAgent({ name: 'Private', phone_number: n.e164 });
      before = await getAgent(id);
      expect(before.attached_phone_numbers).toHaveLength(1);
    });

    /** The other workspace on the real id answers exactly what anyone gets for a missing id. */
    async function expectLikeMissing(
      run: (agentId: string, key: string) => Promise<LightMyRequestResponse>,
      status: 400 | 404,
    ) {
      const missing = await run(MISSING_ID, t.other.key);
      const foreign = await run(id, t.other.key);
      const dMissing = expectNotFound(missing, status);
      const dForeign = expectNotFound(foreign, status);
      expect(dForeign.category).toBe(dMissing.category);
      expect(dForeign.description).toBe((dMissing.description as string).replace(MISSING_ID, id));
    }

    it('get', async () => {
      await expectLikeMissing((x, key) => t.call({ method: 'GET', url: `/v2/assistants/${x}`, key }), 400);
    });

    it('update', async () => {
      await expectLikeMissing((x, key) => update(x, { name: 'Hijacked' }, key), 400);
    });

    it('delete', async () => {
      await expectLikeMissing((x, key) => t.call({ method: 'DELETE', url: `/v2/assistants/${x}`, key }), 400);
    });

    it('attach numbers', async () => {
      const theirs = freshNumber();
      await importNumber(theirs.e164, t.other.key);
      await expectLikeMissing((x, key) => attach(x, { phone_numbers: [theirs.e164] }, key), 404);
    });

    it('detach numbers', async () => {
      await expectLikeMissing((x, key) => detach(x, n.slug, key), 404);
    });

    it('list', async () => {
      const res = await t.call({ method: 'GET', url: '/v2/assistants?limit=1000', key: t.other.key });
      expect(res.statusCode).toBe(200);
      expect((res.json().response.assistants as Json[]).map((a) => a.model_id)).not.toContain(id);
    });

    it('left the agent untouched', async () => {
      expect(await getAgent(id)).toEqual(before);
    });
  });

  describe('auth', () => {
    it('answers 401 with the error body without a key', async () => {
      const res = await t.call({ method: 'GET', url: '/v2/assistants', key: null });
      expectErrorBody(res, 401, 'auth');
    });
  });
});

forEachStore('agents: extra keys and cleared numbers', (target) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  it('echoes unknown keys of max_duration and voicemail_message', async () => {
    const created = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({
        max_duration: { duration_seconds: 600, is_enabled: true, warn_before_seconds: 30 },
        voicemail_message: { enabled: false, vendor_hint: 'x' },
      }),
    });
    expect(created.statusCode).toBe(200);
    const read = await t.call({ method: 'GET', url: `/v2/assistants/${created.json().response.model_id}` });
    const agent = read.json().response.assistants[0];
    expect(agent.max_duration).toEqual({ duration_seconds: 600, is_enabled: true, warn_before_seconds: 30 });
    expect(agent.voicemail_message).toEqual({ enabled: false, vendor_hint: 'x' });
  });

  it('treats an empty phone_number as none, and clears it on update', async () => {
    const created = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({ phone_number: '' }),
    });
    const id = created.json().response.model_id as string;
    const read = async () =>
      (await t.call({ method: 'GET', url: `/v2/assistants/${id}` })).json().response.assistants[0];
    expect((await read()).phone_number).toBe('');
    await t.call({ method: 'PUT', url: `/v2/assistants/${id}`, payload: { phone_number: '+14155550199' } });
    expect((await read()).phone_number).toBe('+14155550199');
    await t.call({ method: 'PUT', url: `/v2/assistants/${id}`, payload: { phone_number: '' } });
    expect((await read()).phone_number).toBe('');
  });
});
