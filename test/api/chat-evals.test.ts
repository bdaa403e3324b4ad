import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LLMError, createBuiltinLLM } from '../../src/providers/index.ts';
import {
  createScriptedLLM,
  type ScriptedLLM,
  type ScriptedReply,
} from '../../src/providers/testing/index.ts';
import type { Json } from '../assertions.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// CUSTOM_EVAL actions attached to an agent: no tool during the chat; once it ends, each question
// is answered over the transcript (one model call each, or the builtin heuristic) and recorded as
// a run on the chat record, like the other actions.

function helpers(api: () => TestApi) {
  async function ok(method: 'GET' | 'POST', url: string, payload?: Json): Promise<Json> {
    const res = await api().call({ method, url, ...(payload !== undefined ? { payload } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: Json }).response;
  }
  async function agentWith(actions: Json[]): Promise<string> {
    const id = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({ agent: { prompt: 'p', greeting_message: 'Hi', end_call_reasons: ['done'] } }),
      )
    ).model_id as string;
    const ids: string[] = [];
    for (const action of actions) ids.push((await ok('POST', '/v2/actions', action)).action_id as string);
    await ok('POST', '/v2/actions/attach', { model_id: id, actions: ids });
    return id;
  }
  async function chat(agent: string): Promise<string> {
    const id = randomUUID();
    await ok('POST', `/v2/chat/${id}`, { model_id: agent });
    return id;
  }
  const say = (id: string, message: string) => ok('POST', `/v2/chat/${id}/messages`, { message });
  const record = (id: string) => ok('GET', `/v2/chat/${id}`);
  return { ok, agentWith, chat, say, record };
}

const evaluation = (identifier: string, text: string, category: string, expected_result?: string) => ({
  CUSTOM_EVAL: {
    question: { identifier, text, category, ...(expected_result ? { expected_result } : {}) },
  },
});

forEachStore('custom evaluations after a chat (configured model)', (target) => {
  let t: TestApi;
  let llm: ScriptedLLM;
  const queue: ScriptedReply[] = [];
  const h = helpers(() => t);

  beforeAll(async () => {
    llm = createScriptedLLM([() => queue.shift() ?? { text: 'OK.' }], { repeatLast: true });
    t = await createTestApi(target, { llm });
  });
  afterAll(() => t.close());
  beforeEach(() => {
    queue.length = 0;
  });

  it('offers no tool during the chat, then records one verdict per question once it ends', async () => {
    const agent = await h.agentWith([
      evaluation('polite', 'Was the agent polite?', 'pass_fail', 'true'),
      evaluation('interest', 'How interested was the person?', 'numeric'),
      evaluation('mood', 'How satisfied did the person sound?', 'likert_scale'),
      evaluation('summary', 'What did the person want?', 'descriptive'),
    ]);
    const id = await h.chat(agent);
    await h.say(id, 'I would like a quote for solar panels');
    // During the chat the model is offered only end_call: evaluations are not tools.
    const during = llm.requests.at(-1);
    expect((during?.tools ?? []).map((tool) => tool.name)).toEqual(['end_call']);
    expect((await h.record(id)).action_execution_timeline).toEqual([]);

    const before = llm.requests.length;
    queue.push(
      { toolCalls: [{ name: 'end_call', arguments: { reason: 'done' } }] },
      // One call per question, in attachment order; answers in every form the reader takes.
      { toolCalls: [{ name: 'record_evaluation', arguments: { result: true, reason: 'Courteous.' } }] },
      { text: '```json\n{"result": "7", "reason": "Asked for a quote."}\n```' },
      { text: '4' },
      {
        toolCalls: [
          { name: 'record_evaluation', arguments: { result: 'A solar quote', reason: 'Said so.' } },
        ],
      },
    );
    await h.say(id, 'that is all');
    expect(queue).toEqual([]);

    const asked = llm.requests.slice(before + 1);
    expect(asked).toHaveLength(4);
    expect(asked[0]?.toolChoice).toBe('required');
    expect(asked[0]?.tools?.map((tool) => tool.name)).toEqual(['record_evaluation']);
    expect(asked[0]?.messages[0]?.content).toContain('Was the agent polite?');
    expect(asked[0]?.messages[1]?.content).toContain('a quote for solar panels');

    const chat = await h.record(id);
    expect(chat.chat_status).toBe('completed');
    const timeline = chat.action_execution_timeline as Json[];
    expect(timeline.map((e) => [e.name, e.action_type, e.status])).toEqual([
      ['polite', 'custom_eval_action_type', 'success'],
      ['interest', 'custom_eval_action_type', 'success'],
      ['mood', 'custom_eval_action_type', 'success'],
      ['summary', 'custom_eval_action_type', 'success'],
    ]);
    const executed = chat.executed_actions as Record<string, Json>;
    const value = (name: string) => executed[name]?.return_value;
    expect(value('polite')).toEqual({
      identifier: 'polite',
      category: 'pass_fail',
      result: true,
      reason: 'Courteous.',
    });
    expect(value('interest')).toEqual({
      identifier: 'interest',
      category: 'numeric',
      result: 7,
      reason: 'Asked for a quote.',
    });
    expect(value('mood')).toEqual({ identifier: 'mood', category: 'likert_scale', result: 4, reason: '' });
    expect(value('summary')).toMatchObject({ result: 'A solar quote' });
    expect(executed.polite?.parameters_hard_coded).toEqual({
      question: {
        identifier: 'polite',
        text: 'Was the agent polite?',
        category: 'pass_fail',
        expected_result: 'true',
      },
    });
  });

  it('a model error or an unusable answer is a failed run; the chat still completes', async () => {
    const agent = await h.agentWith([
      evaluation('polite', 'Was the agent polite?', 'pass_fail'),
      evaluation('mood', 'How satisfied?', 'likert_scale'),
    ]);
    const id = await h.chat(agent);
    await h.say(id, 'hello');
    queue.push(
      { toolCalls: [{ name: 'end_call', arguments: { reason: 'done' } }] },
      { error: new LLMError('the model is down', 'llm_unavailable', true) },
      { toolCalls: [{ name: 'record_evaluation', arguments: { result: 9, reason: 'x' } }] },
    );
    await h.say(id, 'bye');
    expect(queue).toEqual([]);
    const chat = await h.record(id);
    expect(chat.chat_status).toBe('completed');
    const timeline = chat.action_execution_timeline as Json[];
    expect(timeline.map((e) => [e.name, e.status])).toEqual([
      ['polite', 'failed'],
      ['mood', 'failed'],
    ]);
    expect(timeline[0]?.failed_reason).toContain('model error');
    expect(timeline[0]?.failed_reason).toContain('the model is down');
    expect(timeline[1]?.failed_reason).toContain('not an integer from 1 to 5');
    const executed = chat.executed_actions as Record<string, Json>;
    expect(executed.polite?.return_value).toMatchObject({ identifier: 'polite', result: null });
  });
});

forEachStore('custom evaluations after a chat (builtin model)', (target) => {
  let t: TestApi;
  const h = helpers(() => t);

  beforeAll(async () => {
    t = await createTestApi(target, { llm: createBuiltinLLM() });
  });
  afterAll(() => t.close());

  describe('the offline heuristic', () => {
    it('answers pass_fail by key words, gives no score offline, extracts a line for descriptive', async () => {
      const agent = await h.agentWith([
        evaluation('refund', 'Did the person ask about a refund?', 'pass_fail', 'true'),
        evaluation('pricing', 'Did the person mention pricing?', 'pass_fail'),
        evaluation('interest', 'How interested was the person?', 'numeric'),
        evaluation('want', 'What refund did the person want?', 'descriptive'),
      ]);
      const id = await h.chat(agent);
      await h.say(id, 'I want a refund for my order');
      // The builtin model ends the chat on a goodbye (with the agent's end_call reason).
      await h.say(id, 'No, that is all. Goodbye!');
      const chat = await h.record(id);
      expect(chat.chat_status).toBe('completed');
      const executed = chat.executed_actions as Record<string, Json>;
      expect(executed.refund?.return_value).toMatchObject({ category: 'pass_fail', result: true });
      expect(executed.pricing?.return_value).toMatchObject({ category: 'pass_fail', result: false });
      expect(executed.interest?.return_value).toMatchObject({ category: 'numeric', result: null });
      expect((executed.interest?.return_value as Json).reason).toContain('not evaluated offline');
      expect(executed.want?.return_value).toMatchObject({
        category: 'descriptive',
        result: 'I want a refund for my order',
      });
      const timeline = chat.action_execution_timeline as Json[];
      expect(
        timeline.filter((e) => e.action_type === 'custom_eval_action_type').map((e) => e.status),
      ).toEqual(['success', 'success', 'success', 'success']);
    });
  });
});
