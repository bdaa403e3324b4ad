import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { createSimMessaging, type SimMessaging } from '../../src/providers/index.ts';
import { createScriptedLLM, type ScriptedReply } from '../../src/providers/testing/index.ts';
import { expectFieldError, expectNotFound } from '../assertions.ts';
import {
  FAKE_CALCOM_API_KEY,
  FAKE_EVENT_TYPE_ID,
  startFakeCalcom,
  type FakeCalcom,
} from '../calcom-server/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// The action kinds that need more than HTTP, run inside chats: REAL_TIME_BOOKING on the builtin
// calendar (hours set over the API) and on Cal.com (a local fake), INCALL_SMS with and without a
// reply, SEND_SMS once the chat ends, and the final extraction pass.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// Thursday 2026-01-01 00:00 UTC.
const START = Date.UTC(2026, 0, 1);
const OURS = '+14155550142';

forEachStore('chats running booking and messaging actions', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let sim: SimMessaging;
  let calcom: FakeCalcom;
  const queue: ScriptedReply[] = [];
  let nextLead = 500;
  const lead = () => `+1415555${String(nextLead++).padStart(4, '0')}`;

  beforeAll(async () => {
    clock = createManualClock(START);
    sim = createSimMessaging({ clock });
    calcom = await startFakeCalcom({
      slots: ['2026-01-02T10:00:00.000+01:00', '2026-01-02T11:00:00.000+01:00'],
    });
    t = await createTestApi(target, {
      clock,
      allowPrivateNetwork: true,
      messaging: { sim },
      llm: createScriptedLLM([() => queue.shift() ?? { text: 'OK.' }], { clock, repeatLast: true }),
    });
    const res = await call('POST', '/v2/custom-numbers', { phone_number: OURS, provider: 'sim' });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await calcom.close();
  });
  beforeEach(() => {
    queue.length = 0;
  });

  function call(method: string, url: string, payload?: Json) {
    return t.call({ method: method as 'GET', url, ...(payload !== undefined ? { payload } : {}) });
  }
  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await call(method, url, payload);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: Json }).response;
  }
  async function agentWith(actions: Json[], agent: Json = {}): Promise<string> {
    const id = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({ agent: { prompt: 'p', greeting_message: 'Hi', ...agent } }),
      )
    ).model_id as string;
    const ids: string[] = [];
    for (const action of actions) ids.push((await ok('POST', '/v2/actions', action)).action_id as string);
    if (ids.length > 0) await ok('POST', '/v2/actions/attach', { model_id: id, actions: ids });
    await ok('PUT', `/v2/assistants/${id}/phone_numbers`, { phone_numbers: [OURS] });
    return id;
  }
  async function apiChat(agent: string): Promise<string> {
    const id = randomUUID();
    await ok('POST', `/v2/chat/${id}`, { model_id: agent });
    return id;
  }
  const say = async (id: string, message: string) =>
    (await ok('POST', `/v2/chat/${id}/messages`, { message })).agent_message as string;
  const timeline = async (id: string) =>
    ((await ok('GET', `/v2/chat/${id}`)).action_execution_timeline as Json[]).map((e) => [
      e.name,
      e.status,
      e.failed_reason,
    ]);

  describe('the builtin calendar', () => {
    it('has default hours until set, and refuses bad hours naming the field', async () => {
      const agent = await agentWith([]);
      const before = await ok('GET', `/v2/assistants/${agent}/calendar`);
      expect(before).toMatchObject({ uses_default_hours: true, working_hours: [], upcoming_bookings: [] });
      const bad = (working_hours: Json[]) =>
        call('PUT', `/v2/assistants/${agent}/calendar`, { working_hours });
      const slot = { weekday: 'monday', from: '09:00', to: '12:00', timezone: 'Europe/Paris' };
      expectFieldError(await bad([{ ...slot, weekday: 'funday' }]), ['body', 'working_hours', 0, 'weekday']);
      expectFieldError(await bad([{ ...slot, from: '9h' }]), ['body', 'working_hours', 0, 'from']);
      expectFieldError(await bad([slot, { ...slot, to: '08:00' }]), ['body', 'working_hours', 1, 'to']);
      expectFieldError(await bad([{ ...slot, timezone: 'Mars/Base' }]), [
        'body',
        'working_hours',
        0,
        'timezone',
      ]);
      expectNotFound(await call('GET', `/v2/assistants/${randomUUID()}/calendar`));
      const set = await ok('PUT', `/v2/assistants/${agent}/calendar`, { working_hours: [slot] });
      expect(set).toMatchObject({ uses_default_hours: false, working_hours: [slot] });
    });

    it('offers slots in one message and books one in the next; the booking shows on the calendar', async () => {
      const agent = await agentWith([
        {
          REAL_TIME_BOOKING: {
            name: 'Demo',
            timezone: 'Europe/Paris',
            no_of_days: 7,
            max_time_slots: 2,
            min_hours_diff: 0,
          },
        },
      ]);
      await ok('PUT', `/v2/assistants/${agent}/calendar`, {
        working_hours: [{ weekday: 'friday', from: '14:00', to: '15:00', timezone: 'Europe/Paris' }],
      });
      const chat = await apiChat(agent);
      queue.push(
        { toolCalls: [{ name: 'Demo_availability', arguments: {} }] },
        { text: 'Friday 2 pm or 2:30?' },
      );
      expect(await say(chat, 'When can we meet?')).toBe('Friday 2 pm or 2:30?');
      const offered = (await ok('GET', `/v2/chat/${chat}`)).executed_actions.Demo_availability.return_value;
      expect(offered.slots).toEqual([
        { start: '2026-01-02T14:00:00+01:00', end: '2026-01-02T14:30:00+01:00' },
        { start: '2026-01-02T14:30:00+01:00', end: '2026-01-02T15:00:00+01:00' },
      ]);

      const book = { start: '2026-01-02T14:30:00+01:00', name: 'Ann Lee', email: 'ann@example.com' };
      queue.push({ toolCalls: [{ name: 'Demo_book', arguments: book }] }, { text: 'Booked.' });
      expect(await say(chat, '2:30 please, Ann Lee, ann@example.com')).toBe('Booked.');
      // Another chat cannot take the same slot.
      const other = await apiChat(agent);
      queue.push(
        { toolCalls: [{ name: 'Demo_book', arguments: { ...book, name: 'Bob' } }] },
        { text: 'Taken.' },
      );
      await say(other, 'the same please');

      expect(await timeline(chat)).toEqual([
        ['Demo_availability', 'success', null],
        ['Demo_book', 'success', null],
      ]);
      expect(await timeline(other)).toEqual([['Demo_book', 'failed', 'slot_not_offered']]);
      const calendar = await ok('GET', `/v2/assistants/${agent}/calendar`);
      expect(calendar.upcoming_bookings).toMatchObject([
        {
          start: '2026-01-02T13:30:00.000Z',
          end: '2026-01-02T14:00:00.000Z',
          name: 'Ann Lee',
          email: 'ann@example.com',
        },
      ]);
    });

    it('books on Cal.com when the action names it', async () => {
      const agent = await agentWith([
        {
          REAL_TIME_BOOKING: {
            name: 'Cal',
            timezone: 'Europe/Paris',
            no_of_days: 3,
            max_time_slots: 5,
            min_hours_diff: 0,
            calendar: {
              provider: 'calcom',
              api_key: FAKE_CALCOM_API_KEY,
              event_type_id: FAKE_EVENT_TYPE_ID,
              base_url: calcom.url,
            },
          },
        },
      ]);
      const chat = await apiChat(agent);
      queue.push({ toolCalls: [{ name: 'Cal_availability', arguments: {} }] }, { text: 'Slots.' });
      await say(chat, 'availability?');
      queue.push(
        {
          toolCalls: [
            {
              name: 'Cal_book',
              arguments: { start: '2026-01-02T11:00:00+01:00', name: 'Ann', email: 'ann@example.com' },
            },
          ],
        },
        { text: 'Done.' },
      );
      await say(chat, 'the 11 o clock');
      expect(await timeline(chat)).toEqual([
        ['Cal_availability', 'success', null],
        ['Cal_book', 'success', null],
      ]);
      expect(calcom.bookings.map((b) => b.start)).toContain('2026-01-02T10:00:00.000Z');
    });
  });

  describe('messaging actions', () => {
    it('in an API chat (no phone number) an in-call SMS fails with its reason and the chat goes on', async () => {
      const agent = await agentWith([{ INCALL_SMS: { name: 'Link', message_body: 'Here you go' } }]);
      const chat = await apiChat(agent);
      queue.push({ toolCalls: [{ name: 'Link', arguments: {} }] }, { text: 'Could not send it.' });
      expect(await say(chat, 'text me the link')).toBe('Could not send it.');
      expect(await timeline(chat)).toEqual([['Link', 'failed', 'the lead has no phone number']]);
    });

    it('in an SMS chat: sends an in-call SMS, takes the reply to it, and sends SEND_SMS when the chat ends', async () => {
      const to = lead();
      const agent = await agentWith(
        [
          {
            INCALL_SMS: {
              name: 'Confirm',
              message_body: 'Reply YES, {name}',
              wait_for_reply: true,
              timeout_seconds: 60,
            },
          },
          { SEND_SMS: { name: 'Récap ✅', content: 'Thanks {name}, see you!' } },
        ],
        { end_call_reasons: ['done'] },
      );
      const chatId = (
        await ok('POST', '/v2/chat/outbound', {
          agent_id: agent,
          channel: 'sms',
          to_number: to,
          from_number: OURS,
          custom_variables: { name: 'Ann' },
        })
      ).conversation_id as string;

      queue.push({ toolCalls: [{ name: 'Confirm', arguments: {} }] }, { text: 'Confirmed, thanks.' });
      const turn = call('POST', '/v2/messaging/sim/inbound', {
        channel: 'sms',
        from: to,
        to: OURS,
        body: 'book me',
      });
      // The action sent its SMS and waits: the lead's next message is its reply, not a chat turn.
      await expect
        .poll(() => sim.sent().filter((m) => m.to === to && m.body === 'Reply YES, Ann').length)
        .toBe(1);
      const reply = await ok('POST', '/v2/messaging/sim/inbound', {
        channel: 'sms',
        from: to,
        to: OURS,
        body: 'YES',
      });
      expect(reply).toEqual({ chat_id: null, agent_message: null });
      expect((await turn).json().response.agent_message).toBe('Confirmed, thanks.');

      queue.push({ toolCalls: [{ name: 'end_call', arguments: { reason: 'done' } }] }, { text: 'Bye!' });
      await ok('POST', '/v2/messaging/sim/inbound', { channel: 'sms', from: to, to: OURS, body: 'bye' });
      const chat = await ok('GET', `/v2/chat/${chatId}`);
      expect(chat.chat_status).toBe('completed');
      expect(chat.executed_actions.Confirm.return_value).toMatchObject({ reply: 'YES' });
      expect(chat.action_execution_timeline.map((e: Json) => [e.name, e.status])).toEqual([
        ['Confirm', 'success'],
        ['Récap ✅', 'success'],
      ]);
      expect(
        sim
          .sent()
          .filter((m) => m.to === to)
          .map((m) => m.body),
      ).toContain('Thanks Ann, see you!');
    });

    it('an in-call SMS whose reply does not come in time fails with reason timeout', async () => {
      const to = lead();
      const agent = await agentWith([
        { INCALL_SMS: { name: 'Ask', message_body: 'Reply?', wait_for_reply: true, timeout_seconds: 30 } },
      ]);
      await ok('POST', '/v2/chat/outbound', {
        agent_id: agent,
        channel: 'sms',
        to_number: to,
        from_number: OURS,
      });
      queue.push({ toolCalls: [{ name: 'Ask', arguments: {} }] }, { text: 'No answer.' });
      const turn = call('POST', '/v2/messaging/sim/inbound', {
        channel: 'sms',
        from: to,
        to: OURS,
        body: 'go',
      });
      await expect.poll(() => sim.sent().filter((m) => m.to === to && m.body === 'Reply?').length).toBe(1);
      await clock.tick(30_000);
      const chatId = (await turn).json().response.chat_id as string;
      expect(await timeline(chatId)).toEqual([['Ask', 'failed', 'timeout']]);
    });
  });

  it('the final extraction pass fills a value the conversation stated but no turn recorded', async () => {
    const agent = await agentWith(
      [
        {
          INFORMATION_EXTRACTOR: {
            identifier: 'city',
            description: 'Where they live',
            kind: 'open_question',
          },
        },
      ],
      { end_call_reasons: ['done'] },
    );
    const chat = await apiChat(agent);
    expect(await say(chat, 'I live in Lyon')).toBe('OK.');
    queue.push(
      { toolCalls: [{ name: 'end_call', arguments: { reason: 'done' } }] },
      // The pass after the end: one model call offering the extractor's tool.
      { toolCalls: [{ name: 'extract_city', arguments: { value: 'Lyon' } }] },
    );
    await say(chat, 'that is all');
    expect(queue).toEqual([]);
    const record = await ok('GET', `/v2/chat/${chat}`);
    expect(record.chat_status).toBe('completed');
    expect(record.collected_variables).toEqual({ city: { value: 'Lyon', collected: true } });
    expect(record.action_execution_timeline.map((e: Json) => [e.name, e.status])).toEqual([
      ['extract_city', 'success'],
    ]);
  });
});
