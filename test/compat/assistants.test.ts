import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { ISO, expectFieldError, expectNotFound, type Json } from '../assertions.ts';

// Drop-in compatibility of the agent API: a client written for the published API sends its
// requests as that API documents them (its field names and value types, `content-type:
// application/json` with an empty body on body-less operations) and reads the fields and types
// the published responses carry: plain strings where it types a string (empty, never null),
// objects where it types an object. The expected shapes are written out here, not taken from
// Parley's schemas.

/** How HTTP clients of the published API send a request without a body. */
const EMPTY_JSON = { headers: { 'content-type': 'application/json' }, payload: '' };

type Res = { statusCode: number; body: string; json: () => unknown };

/** The envelope of every success; returns the whole body. */
function okBody(res: Res): Json {
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as Json;
  expect(typeof body.status).toBe('string');
  expect(body.status).toBe('ok');
  return body;
}

/** An agent as the published read types it. */
function expectPublishedAgent(a: Json): void {
  expect(typeof a.model_id).toBe('string');
  expect(typeof a.name).toBe('string');
  expect(['outbound', 'inbound', 'widget', 'chat']).toContain(a.type);
  for (const field of ['description', 'phone_number', 'external_webhook_url']) {
    expect(typeof a[field], field).toBe('string');
  }
  expect(typeof a.is_recording).toBe('boolean');
  expect(typeof a.agent).toBe('object');
  expect(a.agent).not.toBeNull();
  const maxDuration = a.max_duration as Json;
  expect(typeof maxDuration).toBe('object');
  expect(maxDuration).not.toBeNull();
  expect(typeof maxDuration.is_enabled).toBe('boolean');
  const voicemail = a.voicemail_message as Json;
  expect(typeof voicemail).toBe('object');
  expect(voicemail).not.toBeNull();
  expect(typeof voicemail.enabled).toBe('boolean');
  expect(Array.isArray(a.end_call_reasons)).toBe(true);
  expect(Array.isArray(a.actions)).toBe(true);
  expect(Array.isArray(a.input_variables)).toBe(true);
  expect(Array.isArray(a.attached_phone_numbers)).toBe(true);
  for (const n of a.attached_phone_numbers as Json[]) {
    expect(typeof n.number).toBe('string');
    expect(typeof n.slug).toBe('string');
    expect(n.sid === null || typeof n.sid === 'string').toBe(true);
  }
}

function expectPagination(p: unknown): void {
  const pagination = p as Json;
  for (const field of ['total_records', 'limit', 'offset']) {
    expect(Number.isInteger(pagination[field]), field).toBe(true);
  }
}

forEachStore('compat: agents, as a client of the published API uses them', (target) => {
  let t: TestApi;

  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  /** POST /assistants as published; returns the model_id after checking the answer's types. */
  async function create(body: Json): Promise<string> {
    const res = okBody(await t.call({ method: 'POST', url: '/v2/assistants', payload: body }));
    const response = res.response as Json;
    expect(typeof response.model_id).toBe('string');
    const details = res.details as Json;
    expect(typeof details.phone).toBe('string');
    expect(typeof details.voice).toBe('string');
    return response.model_id as string;
  }

  async function read(id: string, query = ''): Promise<Json> {
    const res = okBody(await t.call({ method: 'GET', url: `/v2/assistants/${id}${query}`, ...EMPTY_JSON }));
    const response = res.response as Json;
    expectPagination(response.pagination);
    const assistants = response.assistants as Json[];
    expect(assistants).toHaveLength(1);
    expectPublishedAgent(assistants[0]!);
    return assistants[0]!;
  }

  it('creates an agent with the published fields and value types, and reads every one back', async () => {
    const agent = {
      prompt: 'You are {name} from Bright Smile Dental.',
      greeting_message: 'Hi, this is Mia.',
      greeting_message_mode: 'human',
      greeting_message_human_talk_timeout: 5,
      llm: 'gpt-4.1-mini',
      language: 'de-DE',
      voice_id: 'voice-1',
      timezone: 'Europe/Berlin',
      voice_prompt: 'calm',
      // The published document types these as integers ("range 0 to 1").
      voice_stability: 1,
      voice_similarity_boost: 0,
      voice_style: 0,
      voice_optimise_streaming_latency: 2,
      voice_use_speaker_boost: true,
      voice_speed: 1.1,
      voice_volume: 0.9,
      allowed_idle_time_seconds: 20,
      initial_pause_seconds: 1,
      ring_pause_seconds: 2,
      transcriber_keywords: ['Invisalign'],
      transcriber_provider: 'deepgram-nova-3',
      transcriber_speech_recognition: 'high_accuracy',
      background_noise: { enabled: true, type: 'office', volume: 10 },
      noise_cancellation: 'advanced',
      realistic_filler_words: true,
      is_transcript_disabled: false,
      redact_pii: false,
      synthesizer_filter_words: ['darn'],
      end_call_reasons: ['caller hangs up'],
      end_call_reasons_v2: [
        { reason: 'wrong number', closing_message_mode: 'static', closing_message: 'Bye!' },
      ],
      voice_synthesizer: 'eleven_turbo_v2_5',
      suppression_level: 0.4,
      interruption_fade_out: 5,
      min_words_to_interrupt: '2',
      patience_level: 'medium',
      send_user_idle_reminders: true,
      reminder_after_idle_time_seconds: 8,
      reminder_after_idle_message: 'Are you still there?',
      fallback_voice_id: 'voice-2',
      fallback_provider: 'deepgram',
      fallback_model: 'aura',
      consent_message: 'This call is recorded.',
      is_consent_enabled: true,
    };
    const body = {
      type: 'outbound',
      name: 'Front desk',
      description: 'Books cleanings',
      phone_number: '',
      external_webhook_url: 'https://hooks.example.com/post-call',
      is_recording: true,
      max_duration: { duration_seconds: 0, is_enabled: false },
      voicemail_message: { enabled: true, mode: 'exact_message', exact_message: 'Call us back.' },
      end_call_reasons: ['done'],
      inbound_call_webhook_url: 'https://hooks.example.com/inbound',
      agent,
    };
    const id = await create(body);
    const a = await read(id);
    expect(a).toMatchObject({
      model_id: id,
      type: 'outbound',
      name: 'Front desk',
      description: 'Books cleanings',
      phone_number: '',
      external_webhook_url: 'https://hooks.example.com/post-call',
      is_recording: true,
      max_duration: { duration_seconds: 0, is_enabled: false },
      voicemail_message: { enabled: true, mode: 'exact_message', exact_message: 'Call us back.' },
      end_call_reasons: ['done'],
    });
    expect(a.agent).toEqual(agent);
  });

  it('reads a minimal agent with empty strings and disabled objects, never null', async () => {
    const id = await create({ type: 'inbound', name: 'Bare', agent: {} });
    const a = await read(id);
    expect(a).toMatchObject({
      description: '',
      phone_number: '',
      external_webhook_url: '',
      inbound_call_webhook_url: '',
      is_recording: false,
      max_duration: { is_enabled: false },
      voicemail_message: { enabled: false },
      end_call_reasons: [],
      actions: [],
      input_variables: [],
      attached_phone_numbers: [],
    });
    expect(a.created_at).toMatch(ISO);
  });

  it('reads with include_actions=true: action ids and input variables grouped by action_id', async () => {
    const id = await create({ type: 'outbound', name: 'With actions', agent: { prompt: 'p' } });
    const action = okBody(
      await t.call({
        method: 'POST',
        url: '/v2/actions',
        payload: {
          INFORMATION_EXTRACTOR: {
            identifier: 'email',
            description: 'The caller email',
            kind: 'open_question',
            examples: ['a@b.co'],
          },
        },
      }),
    ).response as Json;
    okBody(
      await t.call({
        method: 'POST',
        url: '/v2/actions/attach',
        payload: { model_id: id, actions: [action.action_id] },
      }),
    );
    const a = await read(id, '?include_actions=true');
    expect(a.actions).toEqual([action.action_id]);
    const [group] = a.input_variables as Json[];
    expect(typeof group!.action_id).toBe('string');
    expect(group!.trigger_condition === null || typeof group!.trigger_condition === 'string').toBe(true);
    for (const v of group!.values as Json[]) {
      expect(typeof v.name).toBe('string');
      expect(typeof v.type).toBe('string');
      for (const f of ['description', 'example'])
        expect(v[f] === null || typeof v[f] === 'string').toBe(true);
      expect(v.required === null || typeof v.required === 'boolean').toBe(true);
    }
    expect((await read(id)).actions).toEqual([]);
  });

  it('lists agents at GET /assistants/ with limit and offset', async () => {
    await create({ type: 'widget', name: 'Listed', agent: { prompt: 'p' } });
    const res = okBody(
      await t.call({ method: 'GET', url: '/v2/assistants/?limit=2&offset=0', ...EMPTY_JSON }),
    );
    const response = res.response as Json;
    expectPagination(response.pagination);
    expect(response.pagination).toMatchObject({ limit: 2, offset: 0 });
    const assistants = response.assistants as Json[];
    expect(assistants).toHaveLength(2);
    assistants.forEach(expectPublishedAgent);
    expect(assistants[0]!.name).toBe('Listed');
  });

  it('updates only the given parameters; the answer carries model_id and details', async () => {
    const id = await create({
      type: 'outbound',
      name: 'Before',
      agent: { prompt: 'p', voice_id: 'v1', language: 'en-US' },
    });
    const res = okBody(
      await t.call({
        method: 'PUT',
        url: `/v2/assistants/${id}`,
        payload: {
          name: 'After',
          description: 'Updated',
          external_webhook_url: '',
          max_duration: { duration_seconds: 600, is_enabled: true },
          agent: { greeting_message: 'Hello!', voice_style: 1 },
        },
      }),
    );
    expect(res.response).toEqual({ model_id: id });
    expect(res.details).toEqual({ phone: '', voice: 'v1' });
    const a = await read(id);
    expect(a).toMatchObject({
      name: 'After',
      description: 'Updated',
      external_webhook_url: '',
      max_duration: { duration_seconds: 600, is_enabled: true },
    });
    expect(a.agent).toMatchObject({
      prompt: 'p',
      voice_id: 'v1',
      greeting_message: 'Hello!',
      voice_style: 1,
    });
  });

  it('keeps bad input a 400 naming the field', async () => {
    expectFieldError(
      await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: {
          type: 'outbound',
          name: 'x',
          agent: {},
          max_duration: { duration_seconds: 0, is_enabled: true },
        },
      }),
      ['body', 'max_duration', 'duration_seconds'],
    );
    expectFieldError(
      await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: { type: 'outbound', name: 'x', agent: { voice_style: '1' } },
      }),
      ['body', 'agent', 'voice_style'],
    );
    expectNotFound(await t.call({ method: 'GET', url: '/v2/assistants/nope', ...EMPTY_JSON }), 400);
  });

  describe('phone numbers', () => {
    const NUMBERS = ['+14155550161', '+14155550162'];

    beforeAll(async () => {
      for (const number of NUMBERS) {
        const res = await t.call({
          method: 'POST',
          url: '/v2/custom-numbers',
          payload: { phone_number: number, provider: 'sim' },
        });
        expect(res.statusCode, res.body).toBe(200);
      }
    });

    it('attaches by phone_numbers and by phone_number_slugs, and detaches by slug', async () => {
      const id = await create({ type: 'outbound', name: 'Caller', agent: { prompt: 'p' } });
      const byNumber = await t.call({
        method: 'PUT',
        url: `/v2/assistants/${id}/phone_numbers`,
        payload: { phone_numbers: [NUMBERS[0]] },
      });
      expect(okBody(byNumber)).toEqual({ status: 'ok' });
      const bySlug = await t.call({
        method: 'PUT',
        url: `/v2/assistants/${id}/phone_numbers`,
        payload: { phone_number_slugs: [NUMBERS[1]!.slice(1)] },
      });
      expect(okBody(bySlug)).toEqual({ status: 'ok' });
      const attached = (await read(id)).attached_phone_numbers as Json[];
      expect(attached.map((n) => n.number).sort()).toEqual(NUMBERS);
      expect(attached.map((n) => n.slug).sort()).toEqual(NUMBERS.map((n) => n.slice(1)));

      const detached = await t.call({
        method: 'DELETE',
        url: `/v2/assistants/${id}/phone_numbers/${NUMBERS[0]!.slice(1)}`,
        ...EMPTY_JSON,
      });
      expect(okBody(detached)).toEqual({ status: 'ok' });
      expect(((await read(id)).attached_phone_numbers as Json[]).map((n) => n.number)).toEqual([NUMBERS[1]]);
      expectNotFound(
        await t.call({
          method: 'DELETE',
          url: `/v2/assistants/${id}/phone_numbers/${NUMBERS[0]!.slice(1)}`,
          ...EMPTY_JSON,
        }),
      );
    });

    it('reports an owned phone_number given on create in details.phone', async () => {
      const res = okBody(
        await t.call({
          method: 'POST',
          url: '/v2/assistants',
          payload: { type: 'outbound', name: 'Owned', phone_number: NUMBERS[0], agent: { prompt: 'p' } },
        }),
      );
      expect(res.details).toMatchObject({ phone: NUMBERS[0] });
      expect((await read((res.response as Json).model_id as string)).phone_number).toBe(NUMBERS[0]);
    });
  });

  it('deletes with an empty JSON body; the answer is a string', async () => {
    const id = await create({ type: 'outbound', name: 'Doomed', agent: {} });
    const res = okBody(await t.call({ method: 'DELETE', url: `/v2/assistants/${id}`, ...EMPTY_JSON }));
    expect(typeof (res.response as Json).answer).toBe('string');
    expectNotFound(await t.call({ method: 'GET', url: `/v2/assistants/${id}`, ...EMPTY_JSON }), 400);
  });
});
