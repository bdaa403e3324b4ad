import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/core/index.ts';
import { createSimMessaging } from '../../src/providers/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { ISO, UUID, expectFieldError, expectNotFound, type Json, okResponse } from '../assertions.ts';

// Drop-in compatibility of the chat API: a client written for the published API sends its
// requests as that API documents them (create without a key from a widget, `content-type:
// application/json` with an empty body on GET and DELETE, the cursor passed back as it came) and
// reads the fields and types the published responses carry. The expected shapes are written out
// here, not taken from Parley's schemas.

const EMPTY_JSON = { headers: { 'content-type': 'application/json' }, payload: '' };
const OWN_NUMBER = '+14155550171';

/** A turn of the agent as the published answer to a message types it. */
function expectAgentTurn(turn: Json): void {
  expect(typeof turn.agent_message).toBe('string');
  expect(typeof turn.current_state).toBe('string');
  expect(turn.timestamp).toMatch(ISO);
  expect(Number.isInteger(turn.turn_number)).toBe(true);
}

/** The published chat record (ChatResponse). */
function expectPublishedChat(chat: Json): void {
  expect(chat.chat_id).toMatch(UUID);
  expect(['ongoing', 'completed', 'cancelled']).toContain(chat.chat_status);
  expect(chat.start_timestamp).toMatch(ISO);
  expect(typeof chat.transcript).toBe('string');
  expect(Array.isArray(chat.conversation_history)).toBe(true);
  for (const m of chat.conversation_history as Json[]) {
    expect(typeof m.agent_id).toBe('string');
    expect(typeof m.current_state).toBe('string');
    expect(typeof m.message).toBe('string');
    expect(m.timestamp).toMatch(ISO);
    expect(Number.isInteger(m.turn_number)).toBe(true);
  }
  if (chat.initial_message !== null) expectAgentTurn(chat.initial_message as Json);
  // object or null in the published record; Parley agents have no flow-designer log.
  expect(chat.fsm_log).toBeNull();
}

forEachStore('compat: chats, as a client of the published API uses them', (target) => {
  let t: TestApi;
  let agentId: string;
  let widgetId: string;

  beforeAll(async () => {
    t = await createTestApi(target, { messaging: { sim: createSimMessaging({ clock: systemClock }) } });
    const create = async (body: Json) =>
      okResponse(await t.call({ method: 'POST', url: '/v2/assistants', payload: body })).model_id as string;
    agentId = await create(
      agentBody({ agent: { prompt: 'You help {name}.', greeting_message: 'Hello {name}!' } }),
    );
    widgetId = await create({
      type: 'chat',
      name: 'Widget',
      agent: { prompt: 'p', greeting_message: 'Hi!' },
    });
  });
  afterAll(() => t.close());

  it('creates a chat with model_id and metadata, chats and reads it back', async () => {
    const id = randomUUID();
    const created = okResponse(
      await t.call({
        method: 'POST',
        url: `/v2/chat/${id}`,
        payload: { model_id: agentId, metadata: { name: 'Ann' } },
      }),
    );
    expectPublishedChat(created);
    expect(created).toMatchObject({ chat_id: id, chat_status: 'ongoing', transcript: 'Agent: Hello Ann!' });
    expect(created.initial_message).toMatchObject({ agent_message: 'Hello Ann!', turn_number: 0 });

    const turn = okResponse(
      await t.call({
        method: 'POST',
        url: `/v2/chat/${id}/messages`,
        payload: { message: 'Where is my order?' },
      }),
    );
    expectAgentTurn(turn);
    expect(turn.turn_number).toBe(1);

    const read = okResponse(await t.call({ method: 'GET', url: `/v2/chat/${id}`, ...EMPTY_JSON }));
    expectPublishedChat(read);
    expect((read.conversation_history as Json[]).map((m) => m.agent_id)).toEqual([agentId, 'user', agentId]);
  });

  it('creates and continues a chat without a key (public widget), as the published create does', async () => {
    const id = randomUUID();
    const created = okResponse(
      await t.call({ method: 'POST', url: `/v2/chat/${id}`, payload: { model_id: widgetId }, key: null }),
    );
    expectPublishedChat(created);
    expectAgentTurn(
      okResponse(
        await t.call({
          method: 'POST',
          url: `/v2/chat/${id}/messages`,
          payload: { message: 'hi' },
          key: null,
        }),
      ),
    );
  });

  it('lists chats by agent_id with a string next_cursor, empty on the last page', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = randomUUID();
      okResponse(await t.call({ method: 'POST', url: `/v2/chat/${id}`, payload: { model_id: widgetId } }));
      ids.push(id);
    }
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 10; page++) {
      const query = `agent_id=${widgetId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const response = okResponse(await t.call({ method: 'GET', url: `/v2/chat?${query}`, ...EMPTY_JSON }));
      expect(typeof response.has_more).toBe('boolean');
      expect(typeof response.next_cursor).toBe('string');
      for (const c of response.chats as Json[]) {
        expect(c.chat_id).toMatch(UUID);
        expect(['ongoing', 'completed', 'cancelled']).toContain(c.chat_status);
        expect(c.start_timestamp).toMatch(ISO);
        seen.push(c.chat_id as string);
      }
      cursor = response.next_cursor as string;
      if (!response.has_more) {
        expect(cursor).toBe('');
        break;
      }
      expect(cursor).not.toBe('');
    }
    // Every chat of the agent, newest first (the keyless one of the test above included).
    expect(seen.slice(0, 3)).toEqual([...ids].reverse());
    // The empty cursor passed back is the first page again.
    const again = okResponse(
      await t.call({ method: 'GET', url: `/v2/chat?agent_id=${widgetId}&limit=2&cursor=`, ...EMPTY_JSON }),
    );
    expect((again.chats as Json[]).map((c) => c.chat_id)).toEqual(seen.slice(0, 2));
    // Default limit 10.
    const all = okResponse(await t.call({ method: 'GET', url: '/v2/chat', ...EMPTY_JSON }));
    expect((all.chats as Json[]).length).toBeLessThanOrEqual(10);
  });

  it('deletes a chat with an empty JSON body; status is a string', async () => {
    const id = randomUUID();
    okResponse(await t.call({ method: 'POST', url: `/v2/chat/${id}`, payload: { model_id: agentId } }));
    const res = await t.call({ method: 'DELETE', url: `/v2/chat/${id}`, ...EMPTY_JSON });
    expect(res.statusCode, res.body).toBe(200);
    expect(typeof (res.json() as Json).status).toBe('string');
    const read = okResponse(await t.call({ method: 'GET', url: `/v2/chat/${id}`, ...EMPTY_JSON }));
    expect(read.chat_status).toBe('cancelled');
  });

  it('starts an outbound SMS conversation and answers its conversation_id', async () => {
    expect(
      (
        await t.call({
          method: 'POST',
          url: '/v2/custom-numbers',
          payload: { phone_number: OWN_NUMBER, provider: 'sim' },
        })
      ).statusCode,
    ).toBe(200);
    okResponse(
      await t.call({
        method: 'PUT',
        url: `/v2/assistants/${agentId}/phone_numbers`,
        payload: { phone_numbers: [OWN_NUMBER] },
      }),
    );
    const response = okResponse(
      await t.call({
        method: 'POST',
        url: '/v2/chat/outbound',
        payload: {
          agent_id: agentId,
          channel: 'sms',
          to_number: '+14155550172',
          from_number: OWN_NUMBER,
          initial_message: 'Hi {name}, your order shipped.',
          custom_variables: { name: 'Bo' },
        },
      }),
    );
    expect(response.conversation_id).toMatch(UUID);
    const chat = okResponse(
      await t.call({ method: 'GET', url: `/v2/chat/${response.conversation_id as string}`, ...EMPTY_JSON }),
    );
    expectPublishedChat(chat);
    expect(chat.initial_message).toMatchObject({ agent_message: 'Hi Bo, your order shipped.' });
  });

  it('keeps bad input a 400 naming the field', async () => {
    expectFieldError(await t.call({ method: 'POST', url: `/v2/chat/${randomUUID()}`, payload: {} }), [
      'body',
      'model_id',
    ]);
    expectFieldError(
      await t.call({ method: 'POST', url: `/v2/chat/${randomUUID()}/messages`, payload: { message: 5 } }),
      ['body', 'message'],
    );
    expectFieldError(await t.call({ method: 'GET', url: '/v2/chat?cursor=bad!', ...EMPTY_JSON }), [
      'query',
      'cursor',
    ]);
    expectNotFound(await t.call({ method: 'GET', url: `/v2/chat/${randomUUID()}`, ...EMPTY_JSON }), 400);
  });
});
