import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { ISO, MISSING_ID, UUID, expectFieldError, expectNotFound, type Json } from '../assertions.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Agent versions through the API (docs/agent-versions.md): publish, list, read, restore, roll
// back and diff; calls run the live version (or the one asked for) fixed at placement, its
// config and its actions as they were published; bad input is a 400 naming the field.

type AnyJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FROM = '+14155550100';
const PERSON = '+14155551234';

// A CRM the agents' pre-call action reads: the greeting shows which URL the call's action used.
let server: http.Server;
let base = '';
const hits: string[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ crm: (req.url ?? '').split('/').pop() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

forEachStore('agent versions API', (target) => {
  let t: TestApi;

  beforeAll(async () => {
    // authCacheTtlMs 0: a test holds the workspace's slots by editing it in the store, behind the
    // API's back, as another process would; the API must see each edit at once.
    t = await createTestApi(target, {
      llm: createBuiltinLLM(),
      allowPrivateNetwork: true,
      authCacheTtlMs: 0,
    });
    await ok('POST', '/v2/custom-numbers', { phone_number: FROM, provider: 'sim' });
  });
  afterAll(() => t.close());

  function call(method: string, url: string, payload?: unknown, key?: string) {
    return t.call({
      method: method as 'GET',
      url,
      ...(payload !== undefined ? { payload: payload as Json } : {}),
      ...(key ? { key } : {}),
    });
  }
  async function ok(method: string, url: string, payload?: unknown): Promise<AnyJson> {
    const res = await call(method, url, payload);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: AnyJson }).response;
  }
  async function newAgent(greeting: string, extra: Json = {}): Promise<string> {
    const id = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({ agent: { prompt: 'You sell solar panels.', greeting_message: greeting }, ...extra }),
      )
    ).model_id as string;
    await ok('PUT', `/v2/assistants/${id}/phone_numbers`, { phone_numbers: [FROM] });
    return id;
  }
  const setGreeting = (id: string, greeting: string) =>
    ok('PUT', `/v2/assistants/${id}`, { agent: { greeting_message: greeting } });
  const publish = async (id: string, body?: Json) =>
    (await ok('POST', `/v2/assistants/${id}/versions`, body)) as AnyJson;
  async function placeAndEnd(agent: string, extra: Json = {}): Promise<AnyJson> {
    const placed = await ok('POST', '/v2/calls', { model_id: agent, phone: PERSON, name: 'Ann', ...extra });
    await t.engine.calls.idle();
    return (await ok('GET', `/v2/calls/${placed.call_id as string}`)).calls[0] as AnyJson;
  }
  const firstLine = (record: AnyJson) => (record.transcript as string).split('\n')[0];

  describe('publishing and reading', () => {
    it('publishes the draft, lists newest first marking the live one, and reads a full snapshot', async () => {
      const agent = await newAgent('Hello one');
      const before = await ok('GET', `/v2/assistants/${agent}`);
      expect(before.assistants[0].live_version_id).toBeNull();
      expect(await ok('GET', `/v2/assistants/${agent}/versions`)).toEqual({
        pagination: { total_records: 0, limit: 20, offset: 0 },
        live_version_id: null,
        versions: [],
      });

      const v1 = await publish(agent, { description: 'first cut' });
      expect(v1).toMatchObject({
        version_id: expect.stringMatching(UUID),
        model_id: agent,
        number: 1,
        description: 'first cut',
        is_live: true,
        created_at: expect.stringMatching(ISO),
      });
      expect(v1.snapshot).toMatchObject({
        type: 'outbound',
        name: 'Sales agent',
        agent: { greeting_message: 'Hello one' },
        actions: [],
        knowledge_bases: [],
      });
      await setGreeting(agent, 'Hello two');
      const v2 = await publish(agent); // no body at all
      expect(v2).toMatchObject({ number: 2, description: null, is_live: true });

      const page = await ok('GET', `/v2/assistants/${agent}/versions?limit=1`);
      expect(page.pagination).toEqual({ total_records: 2, limit: 1, offset: 0 });
      expect(page.live_version_id).toBe(v2.version_id);
      expect(page.versions).toEqual([{ ...v2, snapshot: undefined }].map(({ snapshot: _s, ...s }) => s));
      const older = await ok('GET', `/v2/assistants/${agent}/versions?limit=1&offset=1`);
      expect(older.versions.map((v: AnyJson) => [v.number, v.is_live])).toEqual([[1, false]]);

      const read = await ok('GET', `/v2/assistants/${agent}/versions/${v1.version_id as string}`);
      expect(read).toEqual({ ...v1, is_live: false });
      expect((await ok('GET', `/v2/assistants/${agent}`)).assistants[0].live_version_id).toBe(v2.version_id);
    });

    it('snapshots the attached actions and knowledge base with their settings', async () => {
      const agent = await newAgent('Hi');
      const action = (
        await ok('POST', '/v2/actions', {
          INFORMATION_EXTRACTOR: { identifier: 'budget', description: 'Budget', kind: 'open_question' },
        })
      ).action_id as string;
      await ok('POST', '/v2/actions/attach', {
        model_id: agent,
        items: [{ action_id: action, attachment_type: 'during', trigger_condition: 'when money comes up' }],
      });
      const kb = (await ok('POST', '/v2/knowledge_base', { name: 'FAQ' })).knowledge_base_id as string;
      await ok('POST', `/v2/knowledge_base/${kb}/attach?model_id=${agent}`);
      const v1 = await publish(agent);
      expect(v1.snapshot.actions).toEqual([
        {
          action_id: action,
          action_type: 'INFORMATION_EXTRACTOR',
          name: 'budget',
          config: expect.objectContaining({ identifier: 'budget', kind: 'open_question' }),
          attachment_type: 'during',
          trigger_condition: 'when money comes up',
          input_variables_mapping: [],
        },
      ]);
      expect(v1.snapshot.knowledge_bases).toEqual([{ knowledge_base_id: kb }]);
    });
  });

  describe('what calls run', () => {
    it('a call placed after publishing runs the published config, though the draft changed', async () => {
      const agent = await newAgent('Hello from version one.');
      const v1 = await publish(agent);
      await setGreeting(agent, 'Hello from the draft.');
      const record = await placeAndEnd(agent);
      expect(firstLine(record)).toBe('bot: Hello from version one.');
      expect(record.agent_version).toBe(v1.version_id);
    });

    it('agent_version "draft" runs the draft; an agent never published runs its draft', async () => {
      const agent = await newAgent('Hello from version one.');
      await publish(agent);
      await setGreeting(agent, 'Hello from the draft.');
      const draft = await placeAndEnd(agent, { agent_version: 'draft' });
      expect(firstLine(draft)).toBe('bot: Hello from the draft.');
      expect(draft.agent_version).toBe('draft');

      const fresh = await newAgent('Never published.');
      const record = await placeAndEnd(fresh);
      expect(firstLine(record)).toBe('bot: Never published.');
      expect(record.agent_version).toBe('draft');
      const listed = await ok('GET', `/v2/calls?model_id=${fresh}`);
      expect(listed.calls[0].agent_version).toBe('draft');
    });

    it('a version UUID runs that version; rolling back makes new calls run the older one', async () => {
      const agent = await newAgent('Version one.');
      const v1 = await publish(agent);
      await setGreeting(agent, 'Version two.');
      const v2 = await publish(agent);
      await setGreeting(agent, 'The draft.');

      const chosen = await placeAndEnd(agent, { agent_version: v1.version_id });
      expect([firstLine(chosen), chosen.agent_version]).toEqual(['bot: Version one.', v1.version_id]);
      expect(firstLine(await placeAndEnd(agent))).toBe('bot: Version two.');

      expect(await ok('POST', `/v2/assistants/${agent}/versions/${v1.version_id as string}/live`)).toEqual({
        model_id: agent,
        live_version_id: v1.version_id,
      });
      const rolledBack = await placeAndEnd(agent);
      expect([firstLine(rolledBack), rolledBack.agent_version]).toEqual(['bot: Version one.', v1.version_id]);
      // The draft was not touched, and v2 is still there to roll forward to.
      const read = (await ok('GET', `/v2/assistants/${agent}`)).assistants[0] as AnyJson;
      expect([read.agent.greeting_message, read.live_version_id]).toEqual(['The draft.', v1.version_id]);
      await ok('POST', `/v2/assistants/${agent}/versions/${v2.version_id as string}/live`);
      expect(firstLine(await placeAndEnd(agent))).toBe('bot: Version two.');
    });

    it('a call fixes its version at placement: publishing while it waits does not change what it runs', async () => {
      const agent = await newAgent('Placed on version one.');
      const v1 = await publish(agent);
      // Hold the workspace's slots so the call waits `pending`.
      await t.store.workspaces.update(t.ws.id, { maxConcurrentCalls: 0 });
      const placed = await ok('POST', '/v2/calls', { model_id: agent, phone: PERSON, name: 'Ann' });
      await t.engine.calls.idle();
      const waiting = (await ok('GET', `/v2/calls/${placed.call_id as string}`)).calls[0] as AnyJson;
      expect([waiting.status, waiting.agent_version]).toEqual(['pending', v1.version_id]);
      await setGreeting(agent, 'Published later.');
      await publish(agent);
      await t.store.workspaces.update(t.ws.id, { maxConcurrentCalls: 10 });
      await t.engine.calls.admit(t.ws.id);
      await t.engine.calls.idle();
      const record = (await ok('GET', `/v2/calls/${placed.call_id as string}`)).calls[0] as AnyJson;
      expect([firstLine(record), record.agent_version]).toEqual([
        'bot: Placed on version one.',
        v1.version_id,
      ]);
    });

    it("a version's actions run as published, even after the action is edited and detached", async () => {
      const agent = await newAgent('Hello {crm}.');
      const action = (
        await ok('POST', '/v2/actions', {
          CUSTOM_ACTION: {
            name: 'crm_lookup',
            http_mode: 'GET',
            url: `${base}/crm/published`,
            run_action_before_call_start: true,
          },
        })
      ).action_id as string;
      await ok('POST', '/v2/actions/attach', { model_id: agent, actions: [action] });
      const v1 = await publish(agent);
      await ok('PUT', `/v2/actions/${action}`, {
        CUSTOM_ACTION: {
          name: 'crm_lookup',
          http_mode: 'GET',
          url: `${base}/crm/edited`,
          run_action_before_call_start: true,
        },
      });
      await ok('POST', '/v2/actions/detach', { model_id: agent, actions: [action] });

      hits.length = 0;
      const record = await placeAndEnd(agent);
      expect(hits).toEqual(['/crm/published']);
      expect(firstLine(record)).toBe('bot: Hello published.');
      expect(record.executed_actions.crm_lookup).toMatchObject({ error_message: null });
      expect(record.agent_version).toBe(v1.version_id);

      // The draft has no action any more: a draft call runs none.
      hits.length = 0;
      const draft = await placeAndEnd(agent, { agent_version: 'draft' });
      expect(hits).toEqual([]);
      expect(draft.executed_actions).toEqual({});
    });

    it('campaign calls run the live version of their agent, and of an override agent', async () => {
      const agent = await newAgent('Campaign version one.');
      const v1 = await publish(agent);
      const override = await newAgent('Override version one.');
      const o1 = await publish(override);
      await setGreeting(agent, 'Campaign draft.');
      await setGreeting(override, 'Override draft.');
      const batch = await ok('POST', '/v2/calls/batch', {
        model_id: agent,
        from_phone_number: FROM,
        tasks: [
          { to_phone_number: PERSON },
          { to_phone_number: '+14155551235', override_model_id: override },
        ],
      });
      const url = `/v2/calls/batch/${batch.batch_call_id as string}/tasks`;
      let tasks: AnyJson[] = [];
      for (let i = 0; i < 100; i++) {
        await t.engine.dialer.round();
        await t.engine.calls.idle();
        tasks = (await ok('GET', url)).tasks as AnyJson[];
        if (tasks.every((task) => task.call_status === 'completed')) break;
      }
      const records = await Promise.all(
        tasks.map(
          async (task) => (await ok('GET', `/v2/calls/${task.call_id as string}`)).calls[0] as AnyJson,
        ),
      );
      expect(records.map((r) => [firstLine(r), r.agent_version])).toEqual([
        ['bot: Campaign version one.', v1.version_id],
        ['bot: Override version one.', o1.version_id],
      ]);
    });

    it('an inbound call runs the live version of the agent that answers', async () => {
      const number = '+14155550199';
      await ok('POST', '/v2/custom-numbers', { phone_number: number, provider: 'sim' });
      const agent = await newAgent('Inbound version one.', { type: 'inbound' });
      await ok('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: [number] });
      const v1 = await publish(agent);
      await setGreeting(agent, 'Inbound draft.');
      const rung = await ok('POST', '/v2/sim/inbound', { from_number: PERSON, to_number: number });
      await t.engine.calls.idle();
      const record = (await ok('GET', `/v2/calls/${rung.call_id as string}`)).calls[0] as AnyJson;
      expect([firstLine(record), record.agent_version]).toEqual(['bot: Inbound version one.', v1.version_id]);
    });

    it('the WebSocket media test call takes "draft", a version UUID, or nothing for the live version', async () => {
      const agent = await newAgent('Hi');
      const v1 = await publish(agent);
      const start = async (agentVersion?: string) => {
        const res = await call('POST', '/v2/calls/outbound-test-ws-media', {
          modelId: agent,
          ...(agentVersion !== undefined ? { agentVersion } : {}),
        });
        expect(res.statusCode, res.body).toBe(200);
        const { callId } = res.json() as { callId: string };
        return (await ok('GET', `/v2/calls/${callId}`)).calls[0].agent_version as string;
      };
      expect(await start()).toBe(v1.version_id);
      expect(await start('draft')).toBe('draft');
      expect(await start(v1.version_id as string)).toBe(v1.version_id);
      const other = await newAgent('Other');
      const foreign = await publish(other);
      expectFieldError(
        await call('POST', '/v2/calls/outbound-test-ws-media', {
          modelId: agent,
          agentVersion: foreign.version_id,
        }),
        ['body', 'agentVersion'],
      );
    });
  });

  describe('what chats and simulations run', () => {
    it('a chat opens on the live version and keeps it when a newer one is published', async () => {
      const agent = await newAgent('Chat version one.');
      const v1 = await publish(agent);
      await setGreeting(agent, 'Chat draft.');
      const chatId = randomUUID();
      const opened = await ok('POST', `/v2/chat/${chatId}`, { model_id: agent });
      expect(opened.initial_message.agent_message).toBe('Chat version one.');
      expect(opened.agent_version).toBe(v1.version_id);

      await publish(agent);
      const turn = await ok('POST', `/v2/chat/${chatId}/messages`, { message: 'Hello?' });
      expect(turn.current_state).toBe('ongoing');
      const read = await ok('GET', `/v2/chat/${chatId}`);
      expect(read.agent_version).toBe(v1.version_id);
      expect(read.conversation_history[0].message).toBe('Chat version one.');

      const later = await ok('POST', `/v2/chat/${randomUUID()}`, { model_id: agent });
      expect(later.initial_message.agent_message).toBe('Chat draft.');
      const fresh = await ok('POST', `/v2/chat/${randomUUID()}`, {
        model_id: await newAgent('Unpublished.'),
      });
      expect([fresh.initial_message.agent_message, fresh.agent_version]).toEqual(['Unpublished.', 'draft']);
    });

    it('a simulation runs the live version', async () => {
      const agent = await newAgent('Simulated version one.');
      await publish(agent);
      await setGreeting(agent, 'Simulated draft.');
      const made = await ok('POST', '/v2/simulation_cases', {
        name: 'asks',
        prompt: 'You want to know the price.',
        success_criteria: ['The agent answers'],
        call_success_type: 'all',
      });
      const started = await ok('POST', '/v2/simulations', {
        simulation_case_id: made.simulation_case.simulation_case_id,
        target_agent_id: agent,
        max_turns: 10,
      });
      await t.engine.simulations.idle();
      const done = await ok('GET', `/v2/simulations/${started.simulation_id as string}`);
      expect((done.transcript as string).split('\n')[0]).toBe('bot: Simulated version one.');
    });
  });

  describe('restore and diff', () => {
    it('restores a version as the draft with its attachments, without publishing', async () => {
      const agent = await newAgent('Version one.');
      const action = (
        await ok('POST', '/v2/actions', {
          INFORMATION_EXTRACTOR: { identifier: 'budget', description: 'Budget', kind: 'open_question' },
        })
      ).action_id as string;
      await ok('POST', '/v2/actions/attach', { model_id: agent, actions: [action] });
      const v1 = await publish(agent);
      await ok('POST', '/v2/actions/detach', { model_id: agent, actions: [action] });
      await setGreeting(agent, 'Version two.');
      const v2 = await publish(agent);

      const restored = await ok(
        'POST',
        `/v2/assistants/${agent}/versions/${v1.version_id as string}/restore`,
      );
      expect(restored).toEqual({
        model_id: agent,
        restored_version_id: v1.version_id,
        missing_action_ids: [],
        missing_knowledge_base_ids: [],
      });
      const read = (await ok('GET', `/v2/assistants/${agent}?include_actions=true`)).assistants[0] as AnyJson;
      expect(read.agent.greeting_message).toBe('Version one.');
      expect(read.actions).toEqual([action]);
      expect(read.live_version_id).toBe(v2.version_id); // not published
      const diff = await ok(
        'GET',
        `/v2/assistants/${agent}/versions/diff?from=draft&to=${v1.version_id as string}`,
      );
      expect(diff.changes).toEqual([]);
    });

    it('lists field-by-field differences: config by JSON path, actions and bases by id', async () => {
      const agent = await newAgent('Version one.', {
        max_duration: { duration_seconds: 300, is_enabled: true },
      });
      const action = (
        await ok('POST', '/v2/actions', {
          INFORMATION_EXTRACTOR: { identifier: 'budget', description: 'Budget', kind: 'open_question' },
        })
      ).action_id as string;
      const v1 = await publish(agent);
      await setGreeting(agent, 'Version two.');
      await ok('PUT', `/v2/assistants/${agent}`, {
        max_duration: { duration_seconds: 600, is_enabled: true },
      });
      await ok('POST', '/v2/actions/attach', { model_id: agent, actions: [action] });
      const kb = (await ok('POST', '/v2/knowledge_base', { name: 'FAQ' })).knowledge_base_id as string;
      await ok('POST', `/v2/knowledge_base/${kb}/attach?model_id=${agent}`);

      // Defaults: from the live version to the draft (what publishing would change).
      const diff = await ok('GET', `/v2/assistants/${agent}/versions/diff`);
      expect(diff.from).toEqual({ ref: 'live', version_id: v1.version_id });
      expect(diff.to).toEqual({ ref: 'draft', version_id: null });
      const byPath = new Map((diff.changes as AnyJson[]).map((c) => [c.path, c]));
      expect(byPath.get('agent.greeting_message')).toEqual({
        path: 'agent.greeting_message',
        from: 'Version one.',
        to: 'Version two.',
      });
      expect(byPath.get('max_duration.duration_seconds')).toMatchObject({ from: 300, to: 600 });
      expect(byPath.get(`actions[${action}]`)).toMatchObject({
        from: null,
        to: { action_id: action, name: 'budget', attachment_type: 'during' },
      });
      expect(byPath.get(`knowledge_bases[${kb}]`)).toEqual({
        path: `knowledge_bases[${kb}]`,
        from: null,
        to: { knowledge_base_id: kb },
      });
      expect(byPath.size).toBe(4);

      const v2 = await publish(agent);
      await ok('PUT', `/v2/actions/${action}`, {
        INFORMATION_EXTRACTOR: { identifier: 'budget', description: 'Monthly budget', kind: 'open_question' },
      });
      const edited = await ok(
        'GET',
        `/v2/assistants/${agent}/versions/diff?from=${v2.version_id as string}&to=draft`,
      );
      expect(edited.changes).toEqual([
        { path: `actions[${action}].config.description`, from: 'Budget', to: 'Monthly budget' },
      ]);
      const none = await ok(
        'GET',
        `/v2/assistants/${agent}/versions/diff?from=live&to=${v2.version_id as string}`,
      );
      expect(none.changes).toEqual([]);
    });
  });

  describe('bad input', () => {
    it('answers 400 naming the field for unknown versions, other agents and other workspaces', async () => {
      const agent = await newAgent('Hi');
      const other = await newAgent('Other');
      const v1 = await publish(agent);
      const foreign = await publish(other);
      const versionOf = (id: string) => `/v2/assistants/${agent}/versions/${id}`;

      for (const id of [MISSING_ID, foreign.version_id as string, 'not-a-uuid']) {
        for (const [method, url] of [
          ['GET', versionOf(id)],
          ['POST', `${versionOf(id)}/restore`],
          ['POST', `${versionOf(id)}/live`],
        ] as const) {
          const d = expectNotFound(await call(method, url), 400);
          expect(d.description, `${method} ${url}`).toContain('params.version_id');
        }
      }
      // Another workspace's agent is as unknown as a missing one.
      const foreignKey = t.other.key;
      for (const [method, url] of [
        ['POST', `/v2/assistants/${agent}/versions`],
        ['GET', `/v2/assistants/${agent}/versions`],
        ['GET', versionOf(v1.version_id as string)],
        ['GET', `/v2/assistants/${agent}/versions/diff`],
        ['POST', `${versionOf(v1.version_id as string)}/live`],
      ] as const) {
        const d = expectNotFound(await call(method, url, undefined, foreignKey), 400);
        expect(d.description).toContain('params.model_id');
      }

      expectFieldError(await call('GET', `/v2/assistants/${agent}/versions/diff?from=latest`), [
        'query',
        'from',
      ]);
      expectFieldError(await call('GET', `/v2/assistants/${agent}/versions/diff?to=${MISSING_ID}`), [
        'query',
        'to',
      ]);
      expectFieldError(
        await call('GET', `/v2/assistants/${agent}/versions/diff?to=${foreign.version_id as string}`),
        ['query', 'to'],
      );
      expectFieldError(await call('GET', `/v2/assistants/${agent}/versions?limit=0`), ['query', 'limit']);
      expectFieldError(await call('POST', `/v2/assistants/${agent}/versions`, { description: 7 }), [
        'body',
        'description',
      ]);

      for (const agentVersion of ['latest', MISSING_ID, foreign.version_id as string]) {
        expectFieldError(
          await call('POST', '/v2/calls', {
            model_id: agent,
            phone: PERSON,
            name: 'Ann',
            agent_version: agentVersion,
          }),
          ['body', 'agent_version'],
        );
      }
    });
  });
});
