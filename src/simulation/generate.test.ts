import { describe, expect, it } from 'vitest';
import { createBuiltinLLM, type ChatRequest } from '../providers/index.ts';
import { createScriptedLLM, type ScriptedReply } from '../providers/testing/index.ts';
import { CASE_TOOL, generateCases, offlineCases, type GeneratedCase, type GenerationInput } from './index.ts';

const input: GenerationInput = {
  agent: {
    name: 'Dental receptionist',
    type: 'inbound',
    prompt:
      'You are Mia, the receptionist at Bright Smile Dental. Help callers book a cleaning and answer questions. ' +
      'Ask for their email address. Confirm their phone number.',
    greeting_message: 'Hi, this is Mia from Bright Smile Dental. How can I help?',
    end_call_reasons: ['the caller is not interested', { reason: 'wrong number' }],
    language: 'en',
  },
  actions: [
    {
      kind: 'INFORMATION_EXTRACTOR',
      identifier: 'email',
      description: "the caller's email address",
      answer_kind: 'open_question',
    },
    {
      kind: 'INFORMATION_EXTRACTOR',
      identifier: 'plan',
      description: 'which plan they want',
      answer_kind: 'single_choice',
      choices: ['basic', 'premium'],
    },
    { kind: 'REAL_TIME_BOOKING', name: 'Book cleaning' },
    { kind: 'LIVE_TRANSFER', name: 'Front desk', instructions: 'when the caller asks for a human' },
  ],
  knowledgeTopics: ['Opening hours'],
  count: 20,
};

async function all(iterable: AsyncIterable<GeneratedCase>): Promise<GeneratedCase[]> {
  const out: GeneratedCase[] = [];
  for await (const c of iterable) out.push(c);
  return out;
}

const valid = (c: GeneratedCase) =>
  c.name.trim() !== '' &&
  c.prompt.trim() !== '' &&
  c.type === 'custom' &&
  c.success_criteria.length >= 1 &&
  c.success_criteria.length <= 8 &&
  (c.call_success_type === 'all' || c.call_success_type === 'any');

describe('offline generation', () => {
  it('is deterministic, well-formed and uniquely named', async () => {
    const a = offlineCases(input);
    const b = await all(generateCases(input));
    const c = await all(generateCases(input, { llm: createBuiltinLLM() }));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(a.every(valid)).toBe(true);
    expect(new Set(a.map((x) => x.name.toLowerCase())).size).toBe(a.length);
  });

  it('derives a case from every source of the configuration', () => {
    const cases = offlineCases(input);
    const byName = (name: string) => cases.find((c) => c.name === name);
    const happy = byName('Happy path');
    expect(happy?.prompt).toContain('You are calling Bright Smile Dental to book a cleaning.');
    expect(happy?.prompt).toContain('"Hi, I\'d like to book a cleaning."');
    expect(happy?.success_criteria).toContain('The agent greets the caller');
    expect(byName('Provides email')?.success_criteria).toEqual([
      "The agent asks for the caller's email address",
      'The agent records email',
    ]);
    expect(byName('Provides email')?.prompt).toContain('jane.doe@example.com');
    expect(byName('Provides plan')?.success_criteria[0]).toBe('The agent asks which plan they want');
    expect(byName('Provides plan')?.prompt).toContain('you give it: basic');
    expect(byName('Ends call: the caller is not interested')?.success_criteria).toEqual([
      'The agent ends the call because the caller is not interested',
    ]);
    expect(byName('Ends call: the caller is not interested')?.prompt).toContain('"I am not interested."');
    expect(byName('Ends call: wrong number')?.prompt).toContain('"Sorry, wrong number."');
    expect(byName('Asks about opening hours')?.success_criteria[0]).toBe(
      'The agent answers the question about opening hours',
    );
    expect(byName('Books an appointment')?.success_criteria).toContain(
      'The agent offers to book an appointment',
    );
    expect(byName('Asks for a human (Front desk)')?.success_criteria).toContain(
      'The agent offers to transfer the caller to a person',
    );
    expect(byName('Angry caller')?.success_criteria).toEqual([
      'The agent stays polite and professional',
      "The agent acknowledges the caller's frustration and de-escalates",
    ]);
    expect(byName('Off-topic caller')?.success_criteria[0]).toMatch(
      /^The agent steers the conversation back to/,
    );
    expect(byName('Short-answer caller')).toBeDefined();
  });

  it('takes the configuration round-robin, so a small count covers different kinds', () => {
    expect(offlineCases({ ...input, count: 5 }).map((c) => c.name)).toEqual([
      'Happy path',
      'Provides email',
      'Ends call: the caller is not interested',
      'Asks about opening hours',
      'Books an appointment',
    ]);
  });

  it('caps the number at count (clamped to 1..20)', async () => {
    expect(offlineCases({ ...input, count: 3 })).toHaveLength(3);
    expect(offlineCases({ ...input, count: 0 })).toHaveLength(1);
    expect(await all(generateCases({ ...input, count: 2 }))).toHaveLength(2);
    const many = offlineCases({
      ...input,
      count: 50,
      scenarios: Array.from({ length: 30 }, (_, i) => `Scenario ${i}`),
    });
    expect(many).toHaveLength(20);
  });

  it('puts explicit scenarios first, their text as the caller goal, then the requested tests', () => {
    const cases = offlineCases({
      ...input,
      count: 6,
      scenarios: ['The caller wants to cancel their appointment', 'Asks about parking'],
      includeTests: ['angry_user', 'repetitive_phrases', 'not_a_kind'],
    });
    expect(cases.map((c) => c.name)).toEqual([
      'Scenario: The caller wants to cancel their appointment',
      'Scenario: Asks about parking',
      'Angry user',
      'Repetitive phrases',
      'Happy path',
      'Provides email',
    ]);
    expect(cases[0]?.prompt).toContain('You want to cancel your appointment.');
    expect(cases[0]?.success_criteria[0]).toContain('cancel their appointment');
    // angry_user replaces the generic angry caller.
    const full = offlineCases({ ...input, includeTests: ['angry_user'] });
    expect(full.filter((c) => /angry/i.test(c.name)).map((c) => c.name)).toEqual(['Angry user']);
  });

  it('maps every include_tests kind to a case with fitting criteria', () => {
    const cases = offlineCases({
      ...input,
      knowledgeTopics: [],
      actions: [],
      count: 20,
      includeTests: [
        'csat_score',
        'accuracy_of_responses',
        'script_compliance',
        'angry_user',
        'repetitive_phrases',
        'conversational_naturalness',
        'task_completion',
      ],
    });
    const criteria = Object.fromEntries(cases.slice(0, 7).map((c) => [c.name, c.success_criteria]));
    expect(criteria).toEqual({
      'Caller satisfaction': [
        'The caller ends the call satisfied',
        'The agent helps the caller book a cleaning',
      ],
      'Accuracy of responses': [
        'The agent answers the question about how to book a cleaning',
        'The conversation reaches a natural end',
      ],
      'Script compliance': [
        'The agent follows this step of its script: Ask for their email address',
        'The agent follows this step of its script: Confirm their phone number',
      ],
      'Angry user': [
        'The agent stays polite and professional',
        "The agent acknowledges the caller's frustration and de-escalates",
      ],
      'Repetitive phrases': [
        'The agent does not repeat the same sentence word for word',
        'The agent stays polite and professional',
      ],
      'Conversational naturalness': [
        'The agent keeps its replies short and conversational',
        'The agent does not use lists or text formatting',
      ],
      'Task completion': [
        'The agent helps the caller book a cleaning',
        'The conversation reaches a natural end',
      ],
    });
  });

  it('makes duplicate names unique', () => {
    const cases = offlineCases({
      ...input,
      count: 20,
      scenarios: ['Refund', 'refund '],
      knowledgeTopics: ['Prices', 'prices'],
    });
    const names = cases.map((c) => c.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    expect(cases.map((c) => c.name)).toContain('Asks about prices (2)');
  });

  it('works for a bare agent', () => {
    const cases = offlineCases({ agent: { name: 'Bot' }, count: 20 });
    expect(cases.map((c) => c.name)).toEqual([
      'Happy path',
      'Angry caller',
      'Off-topic caller',
      'Short-answer caller',
    ]);
    expect(cases[0]?.prompt).toContain('You are calling Bot with a question.');
    expect(cases.every(valid)).toBe(true);
  });
});

const good = (name: string, extra: Record<string, unknown> = {}): ScriptedReply => ({
  toolCalls: [
    {
      name: CASE_TOOL,
      arguments: {
        name,
        prompt: `You are ${name}.`,
        success_criteria: ['The agent books a cleaning'],
        call_success_type: 'any',
        ...extra,
      },
    },
  ],
});

describe('generation with a model', () => {
  const two = { ...input, count: 2 };

  it('asks for one required tool call per case with the configuration and the slot in the prompt', async () => {
    const llm = createScriptedLLM([good('Eager patient'), good('Busy parent')]);
    const cases = await all(generateCases(two, { llm, model: 'gpt-x' }));
    expect(cases).toEqual([
      {
        name: 'Eager patient',
        prompt: 'You are Eager patient.',
        type: 'custom',
        success_criteria: ['The agent books a cleaning'],
        call_success_type: 'any',
      },
      {
        name: 'Busy parent',
        prompt: 'You are Busy parent.',
        type: 'custom',
        success_criteria: ['The agent books a cleaning'],
        call_success_type: 'any',
      },
    ]);
    const request = llm.requests[0] as ChatRequest;
    expect(request.toolChoice).toBe('required');
    expect(request.model).toBe('gpt-x');
    expect(request.tools?.map((t) => t.name)).toEqual([CASE_TOOL]);
    const user = request.messages[1]?.content ?? '';
    expect(user).toContain('Help callers book a cleaning');
    expect(user).toContain('INFORMATION_EXTRACTOR "email"');
    expect(user).toContain('- Opening hours');
    expect(user).toContain('the happy path');
    // The second request knows the names already used and its own slot.
    const second = llm.requests[1]?.messages[1]?.content ?? '';
    expect(second).toContain('- Eager patient');
    expect(second).toContain('the agent must collect "email"');
  });

  it('retries once with the problem stated, then uses the valid answer', async () => {
    const llm = createScriptedLLM([good('', { success_criteria: [] }), good('Fixed case'), good('Second')]);
    const cases = await all(generateCases(two, { llm }));
    expect(cases.map((c) => c.name)).toEqual(['Fixed case', 'Second']);
    expect(llm.requests).toHaveLength(3);
    const retry = llm.requests[1]?.messages.at(-1)?.content ?? '';
    expect(retry).toContain('could not be used');
    expect(retry).toMatch(/invalid test case/);
  });

  it('falls back to the offline case for a slot the model fails twice', async () => {
    const llm = createScriptedLLM([
      { text: 'no tool call' },
      good('x', { success_criteria: Array.from({ length: 9 }, (_, i) => `c${i}`) }),
      good('Second'),
    ]);
    const cases = await all(generateCases(two, { llm }));
    expect(cases[0]).toEqual(offlineCases(two)[0]);
    expect(cases[1]?.name).toBe('Second');
    expect(cases.every(valid)).toBe(true);
  });

  it('keeps names unique when the model repeats one', async () => {
    const llm = createScriptedLLM([good('Same'), good('same')]);
    const cases = await all(generateCases(two, { llm }));
    expect(cases.map((c) => c.name)).toEqual(['Same', 'same (2)']);
  });

  it('yields each case before the next model call is made', async () => {
    const llm = createScriptedLLM([good('First'), good('Second'), good('Third')]);
    const iterator = generateCases({ ...input, count: 3 }, { llm })[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.name).toBe('First');
    expect(llm.requests).toHaveLength(1);
    const second = await iterator.next();
    expect(second.value?.name).toBe('Second');
    expect(llm.requests).toHaveLength(2);
    await iterator.return?.(undefined);
    expect(llm.requests).toHaveLength(2);
  });

  it('stops without error when aborted', async () => {
    const controller = new AbortController();
    const llm = createScriptedLLM([good('First'), good('Second')]);
    const out: GeneratedCase[] = [];
    for await (const c of generateCases(two, { llm, signal: controller.signal })) {
      out.push(c);
      controller.abort();
    }
    expect(out.map((c) => c.name)).toEqual(['First']);
    expect(llm.requests).toHaveLength(1);
  });
});
