import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../core/index.ts';
import { collectChat, type CollectedChat } from '../collect.ts';
import type { ChatChunk, ChatMessage, ChatRequest, ToolSpec } from '../types.ts';
import { createBuiltinLLM } from './index.ts';
import { readPrompt } from './prompt.ts';
import { normalize } from './text.ts';

const SOLAR =
  'You are Sam from SunCo. You call homeowners to offer a free solar assessment. Ask if they own their home and book a visit.';
const DENTIST =
  'You are Mia, the receptionist at Bright Smile Dental. Answer questions about the practice and help callers book an appointment. Be friendly and brief.';
const NEWSLETTER =
  'You are Ava from Daily Digest. You call readers to offer a free subscription to our weekly newsletter. Ask if they would like to subscribe, then collect their email address.';

const REMOVE = 'the caller asks to be removed from the list';
const NOT_INTERESTED = 'the caller is not interested';

function endCall(custom: string[] = []): ToolSpec {
  return {
    name: 'end_call',
    description: 'End the call',
    parameters: {
      type: 'object',
      properties: {
        reason: { type: 'string', enum: [...custom, 'user said goodbye', 'conversation complete'] },
      },
      required: ['reason'],
    },
  };
}

const EXTRACT_EMAIL: ToolSpec = {
  name: 'extract_email',
  description: "Ask for and record the caller's email address",
  parameters: {
    type: 'object',
    properties: { value: { type: 'string', description: 'the email address' } },
    required: ['value'],
  },
};

const DENTIST_KNOWLEDGE = [
  '## Knowledge',
  '- Bright Smile Dental is open Monday to Friday from 8am to 6pm, and Saturday from 9am to 1pm.',
  '- We are located at 42 Harbour Street, Springfield, next to the library. Free parking is behind the building.',
  '- A check-up costs $60 and a cleaning costs $80. Whitening starts at $250.',
].join('\n');

/**
 * A conversation driven the way the engine drives it: the prompt first, the knowledge (if any)
 * as a second system message, the history, the tools; tool calls answered with `ok`.
 */
class Conversation {
  readonly llm = createBuiltinLLM({ clock: createManualClock() });
  readonly history: ChatMessage[] = [];
  ended?: string;

  constructor(
    readonly prompt: string,
    readonly tools: ToolSpec[] = [endCall()],
    readonly knowledge?: string,
  ) {}

  request(): ChatRequest {
    const system: ChatMessage[] = [{ role: 'system', content: this.prompt }];
    if (this.knowledge && this.history.some((m) => m.role === 'user'))
      system.push({ role: 'system', content: this.knowledge });
    return { messages: [...system, ...this.history], tools: this.tools };
  }

  /** One model reply (following tool calls other than end_call); returns what was said. */
  async reply(): Promise<string> {
    const said: string[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await collectChat(this.llm.chat(this.request()));
      this.history.push({
        role: 'assistant',
        content: result.text,
        ...(result.toolCalls.length > 0 ? { toolCalls: result.toolCalls } : {}),
      });
      if (result.text) said.push(result.text);
      if (result.toolCalls.length === 0) break;
      const end = result.toolCalls.find((c) => c.name === 'end_call');
      if (end) {
        this.ended = (JSON.parse(end.arguments) as { reason: string }).reason;
        break;
      }
      for (const call of result.toolCalls)
        this.history.push({ role: 'tool', toolCallId: call.id, content: 'ok' });
    }
    return said.join(' ');
  }

  async user(text: string): Promise<string> {
    this.history.push({ role: 'user', content: text });
    return this.reply();
  }

  toolCalls(name: string): unknown[] {
    return this.history.flatMap((m) =>
      m.role === 'assistant'
        ? (m.toolCalls ?? []).filter((c) => c.name === name).map((c) => JSON.parse(c.arguments) as unknown)
        : [],
    );
  }

  assistantLines(): string[] {
    return this.history.flatMap((m) => (m.role === 'assistant' && m.content !== '' ? [m.content] : []));
  }
}

async function chunksOf(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function expectNoRepeats(conversation: Conversation) {
  const lines = conversation.assistantLines().map(normalize);
  expect(new Set(lines).size).toBe(lines.length);
}

describe('builtin model: solar sales (outbound)', () => {
  it('opens with who it is and why it calls, without repeating the prompt', async () => {
    const c = new Conversation(SOLAR);
    const opening = await c.reply();
    expect(opening).toBe(
      "Hi, this is Sam from SunCo. I'm calling to offer a free solar assessment. Do you own your home?",
    );
    expect(opening).not.toContain(SOLAR);
    expect(opening).not.toContain('You call homeowners');
  });

  it('asks its questions in order, books a visit and ends on goodbye', async () => {
    const c = new Conversation(SOLAR);
    await c.reply();
    expect(await c.user('Who is this?')).toBe(
      "This is Sam from SunCo. I'm calling to offer a free solar assessment. So, do you own your home?",
    );
    expect(await c.user('Yes, I do.')).toMatch(
      /^(?:Great|Wonderful|Perfect)\. Would you like to book a visit\?$/,
    );
    expect(await c.user('Sure')).toMatch(/What day and time would suit you\?$/);
    expect(await c.user('Thursday afternoon')).toBe(
      "Thank you, I've noted Thursday afternoon. Is there anything else I can help you with?",
    );
    expect(c.ended).toBeUndefined();
    await c.user('No, that is all. Bye!');
    expect(c.ended).toBe('user said goodbye');
    expectNoRepeats(c);
  });

  it('takes a no, moves on, and ends as complete when nothing else is wanted', async () => {
    const c = new Conversation(SOLAR);
    await c.reply();
    expect(await c.user('hello?')).toMatch(/^(?:Hi!|Hello!|Hi there!) So, do you own your home\?$/);
    expect(await c.user('No, I rent.')).toMatch(/Would you like to book a visit\?$/);
    expect(await c.user('no thanks')).toMatch(/Is there anything else I can help you with\?$/);
    await c.user('no');
    expect(c.ended).toBe('conversation complete');
    expectNoRepeats(c);
  });

  it.each(['bye', 'Goodbye!', "that's all, thanks", 'Have a nice day', 'I have to go, take care'])(
    'ends the call with "user said goodbye" on %j',
    async (line) => {
      const c = new Conversation(SOLAR);
      await c.reply();
      const text = await c.user(line);
      expect(text).toBe('');
      expect(c.ended).toBe('user said goodbye');
    },
  );

  it('says what it is when asked if it is a robot, and re-asks its question', async () => {
    const c = new Conversation(SOLAR);
    await c.reply();
    expect(await c.user('Am I talking to a robot?')).toBe(
      "I'm Sam, an automated assistant for SunCo. So, do you own your home?",
    );
  });

  it('rewords a question asked again instead of repeating the line', async () => {
    const c = new Conversation(SOLAR);
    await c.reply();
    await c.user('hmm?');
    await c.user('what?');
    await c.user('hello?');
    await c.user('hello?');
    expectNoRepeats(c);
  });
});

describe('builtin model: dentist receptionist with knowledge', () => {
  it('greets as the practice, answers from the passages and offers a booking', async () => {
    const c = new Conversation(DENTIST, [endCall()], DENTIST_KNOWLEDGE);
    expect(await c.reply()).toBe('Hi, this is Mia from Bright Smile Dental. How can I help you today?');
    expect(await c.user('When are you open?')).toBe(
      'Bright Smile Dental is open Monday to Friday from 8am to 6pm, and Saturday from 9am to 1pm. Would you like to book an appointment?',
    );
    const where = await c.user('Where are you located?');
    expect(where).toContain('42 Harbour Street');
    expect(where).toMatch(/would you like to book an appointment\?$/);
    const price = await c.user('How much is a cleaning?');
    expect(price).toContain('a cleaning costs $80');
    expect(await c.user('Yes please')).toMatch(/What day and time would suit you\?$/);
    expect(await c.user('Tuesday at 10am')).toBe(
      "Thank you, I've noted Tuesday at 10am. Is there anything else I can help you with?",
    );
    await c.user('no thanks');
    expect(c.ended).toBe('conversation complete');
    expectNoRepeats(c);
  });

  it('picks the passage that matches the words, not the first one', async () => {
    const c = new Conversation(DENTIST, [endCall()], DENTIST_KNOWLEDGE);
    await c.reply();
    expect(await c.user("What's the price of whitening?")).toMatch(
      /^A check-up costs \$60.*Whitening starts at \$250\./,
    );
    expect(await c.user('Is there parking?')).toMatch(/^We are located at 42 Harbour Street/);
  });

  it('says it does not know when no passage matches, and a booking request asks when', async () => {
    const c = new Conversation(DENTIST, [endCall()], DENTIST_KNOWLEDGE);
    await c.reply();
    const unknown = await c.user('Do you treat cats?');
    expect(unknown).toMatch(/don't (?:have|know)/);
    expect(unknown).not.toContain('Harbour');
    // The follow-up offered a booking; a booking request answers it.
    expect(unknown).toMatch(/Would you like to book an appointment\?$/);
    expect(await c.user("I'd like to book a cleaning")).toMatch(/What day and time would suit you\?$/);
  });

  it('takes a booking request made before any offer', async () => {
    const c = new Conversation(DENTIST, [endCall()], DENTIST_KNOWLEDGE);
    await c.reply();
    expect(await c.user("I'd like to book a cleaning")).toMatch(
      /^(?:Sure|Of course), I can help you book an appointment\. What day and time would suit you\?$/,
    );
  });

  it('quotes a long passage briefly: the matching sentences only', async () => {
    const long = [
      '## Knowledge',
      '- ' +
        Array.from(
          { length: 8 },
          (_, i) => `Filler sentence number ${i} talks about nothing in particular at all.`,
        ).join(' ') +
        ' Emergency appointments are available every weekday morning before nine.',
    ].join('\n');
    const c = new Conversation(DENTIST, [endCall()], long);
    await c.reply();
    const answer = await c.user('Do you have emergency appointments?');
    expect(answer).toMatch(/^Emergency appointments are available every weekday morning before nine\./);
    expect(answer.split(' ').length).toBeLessThan(40);
  });
});

describe('builtin model: end-call reasons and email extraction', () => {
  const tools = () => [endCall([REMOVE, NOT_INTERESTED]), EXTRACT_EMAIL];

  it('asks for the email, records it with the tool, and does not ask again', async () => {
    const c = new Conversation(NEWSLETTER, tools());
    expect(await c.reply()).toBe(
      "Hi, this is Ava from Daily Digest. I'm calling to offer a free subscription to our weekly newsletter. Would you like to subscribe?",
    );
    expect(await c.user('Yes please')).toMatch(
      /^(?:Great|Wonderful|Perfect)\. Could I have your email address\?$/,
    );
    expect(await c.user("sure, it's Jane.Doe@example.com")).toBe(
      "Thanks, I've noted your email address. Is there anything else I can help you with?",
    );
    expect(c.toolCalls('extract_email')).toEqual([{ value: 'jane.doe@example.com' }]);
    const last = await c.user('Do you send it on Mondays?');
    expect(last).not.toMatch(/email address\?/);
    await c.user('no thanks');
    expect(c.ended).toBe('conversation complete');
    expectNoRepeats(c);
  });

  it('understands a spelled-out email, and re-asks after a question', async () => {
    const c = new Conversation(NEWSLETTER, tools());
    await c.reply();
    await c.user('Yes');
    const again = await c.user('Why do you need it?');
    expect(again).toMatch(/could I have your email address\?$/);
    await c.user('jane dot doe at example dot com');
    expect(c.toolCalls('extract_email')).toEqual([{ value: 'jane.doe@example.com' }]);
  });

  it('re-asks when the answer holds no email address, then moves on after a no', async () => {
    const c = new Conversation(NEWSLETTER, tools());
    await c.reply();
    await c.user('Yes');
    expect(await c.user('hmm, let me think')).toMatch(/^Sorry.*could I have your email address\?$/i);
    expect(await c.user("no, I'd rather not")).toMatch(/Is there anything else I can help you with\?$/);
    expect(c.toolCalls('extract_email')).toEqual([]);
  });

  it('records an email given before it was asked for', async () => {
    const c = new Conversation(NEWSLETTER, tools());
    await c.reply();
    await c.user('Yes, send it to sam@example.org');
    expect(c.toolCalls('extract_email')).toEqual([{ value: 'sam@example.org' }]);
  });

  it('asks again when the tool reports an error', async () => {
    const llm = createBuiltinLLM();
    const result = await collectChat(
      llm.chat({
        messages: [
          { role: 'system', content: NEWSLETTER },
          { role: 'assistant', content: 'Could I have your email address?' },
          { role: 'user', content: 'it is a@b.co' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'c1', name: 'extract_email', arguments: '{"value":"a@b.co"}' }],
          },
          { role: 'tool', toolCallId: 'c1', content: '{"error":"invalid email"}' },
        ],
        tools: tools(),
      }),
    );
    expect(result.toolCalls).toEqual([]);
    expect(result.text).toMatch(/could I have your email address\?$/i);
  });

  it.each([
    ['Please remove me from your list', REMOVE],
    ['Take me off your list.', REMOVE],
    ["Don't call me again", REMOVE],
    ["I'm not interested", NOT_INTERESTED],
    ['No thanks, not interested.', NOT_INTERESTED],
  ])('%j ends the call with %j', async (line, reason) => {
    const c = new Conversation(NEWSLETTER, tools());
    await c.reply();
    expect(await c.user(line)).toBe('');
    expect(c.ended).toBe(reason);
    expect(c.toolCalls('end_call')).toEqual([{ reason }]);
  });

  it.each(["I'm interested", "I don't want to be removed from the list", 'What list is this?'])(
    '%j does not end the call',
    async (line) => {
      const c = new Conversation(NEWSLETTER, tools());
      await c.reply();
      await c.user(line);
      expect(c.ended).toBeUndefined();
    },
  );
});

describe('builtin model: other extraction tools', () => {
  const tool = (name: string, description: string, schema: Record<string, unknown>): ToolSpec => ({
    name,
    description,
    parameters: { type: 'object', properties: { value: schema }, required: ['value'] },
  });
  const PLAN = tool('extract_plan', 'Ask which plan the caller wants', {
    type: 'string',
    enum: ['basic', 'standard', 'premium'],
  });
  const CALLBACK = tool('extract_callback', 'Ask whether the caller wants a callback', { type: 'boolean' });
  const PEOPLE = tool('extract_people', 'How many people live in the household', { type: 'integer' });
  const NAME = tool('extract_name', "Ask for the caller's full name", { type: 'string' });

  it('asks each value in turn and records a choice, a boolean, a number and a name', async () => {
    const c = new Conversation('You are Max from FiberNet. Help customers choose an internet plan.', [
      endCall(),
      NAME,
      PLAN,
      CALLBACK,
      PEOPLE,
    ]);
    expect(await c.reply()).toBe('Hi, this is Max from FiberNet. How can I help you today?');
    expect(await c.user("I'd like a new plan")).toMatch(/Could I have your full name\?$/);
    expect(await c.user("It's jane doe")).toMatch(
      /^Thanks, I've noted your full name\. Which plan do you want: basic, standard or premium\?$/,
    );
    expect(await c.user('The premium one, please')).toMatch(/Do you want a callback\?$/);
    expect(await c.user('No')).toMatch(/How many people live in your household\?$/);
    await c.user('three of us');
    expect(c.toolCalls('extract_name')).toEqual([{ value: 'Jane Doe' }]);
    expect(c.toolCalls('extract_plan')).toEqual([{ value: 'premium' }]);
    expect(c.toolCalls('extract_callback')).toEqual([{ value: false }]);
    expect(c.toolCalls('extract_people')).toEqual([{ value: 3 }]);
    expectNoRepeats(c);
  });

  it('does not ask for a value whose tool already returned a result', async () => {
    const llm = createBuiltinLLM();
    const result = await collectChat(
      llm.chat({
        messages: [
          { role: 'system', content: 'You are Max from FiberNet.' },
          { role: 'assistant', content: 'Which plan do you want: basic, standard or premium?' },
          { role: 'user', content: 'basic' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'c1', name: 'extract_plan', arguments: '{"value":"basic"}' }],
          },
          { role: 'tool', toolCallId: 'c1', content: 'ok' },
          { role: 'assistant', content: 'Thank you. Is there anything else I can help you with?' },
          { role: 'user', content: 'Yes, one thing' },
        ],
        tools: [endCall(), PLAN],
      }),
    );
    expect(result.text).not.toMatch(/which plan/i);
  });
});

describe('builtin model: reading prompts', () => {
  it.each([
    [SOLAR, { name: 'Sam', org: 'SunCo', outbound: true, purpose: 'to offer a free solar assessment' }],
    [DENTIST, { name: 'Mia', org: 'Bright Smile Dental', role: 'receptionist', outbound: false }],
    ["You are Acme Bank's virtual assistant.", { org: 'Acme Bank', role: 'virtual assistant' }],
    [
      'You are calling on behalf of City Clinic to remind patients of their appointment.',
      { org: 'City Clinic', outbound: true, purpose: 'to remind you of your appointment' },
    ],
  ])('%j', (prompt, expected) => {
    expect(readPrompt(prompt)).toMatchObject(expected);
  });

  it('turns instructions into questions said to the caller', () => {
    const questions = readPrompt(
      'Your name is Leo and you work for Green Energy. You are calling customers about their overdue invoice. ' +
        'Find out whether the customer has already paid. Ask what time works best for them, then confirm their address. ' +
        'Ask whether they prefer mornings or afternoons.',
    ).questions.map((q) => q.text);
    expect(questions).toEqual([
      'Have you already paid?',
      'What time works best for you?',
      'Could you confirm your address?',
      'Do you prefer mornings or afternoons?',
    ]);
  });

  it('greets from an organisation alone, or plainly when the prompt names nobody', async () => {
    const plumbing = await collectChat(
      createBuiltinLLM().chat({
        messages: [{ role: 'system', content: 'You are a friendly assistant for Acme Plumbing.' }],
      }),
    );
    expect(plumbing.text).toBe("Hi, you've reached Acme Plumbing. How can I help you today?");
    const plain = await collectChat(
      createBuiltinLLM().chat({ messages: [{ role: 'system', content: 'Be helpful.' }] }),
    );
    expect(plain.text).toBe('Hi there! How can I help you today?');
  });
});

describe('builtin model: the LLM contract', () => {
  it('is named builtin and is deterministic', async () => {
    const c = new Conversation(DENTIST, [endCall()], DENTIST_KNOWLEDGE);
    await c.reply();
    c.history.push({ role: 'user', content: 'How much is a check-up?' });
    const request = c.request();
    const a = await chunksOf(createBuiltinLLM({ clock: createManualClock() }).chat(request));
    const b = await chunksOf(createBuiltinLLM({ clock: createManualClock() }).chat(structuredClone(request)));
    expect(c.llm.name).toBe('builtin');
    expect(a).toEqual(b);
  });

  it('streams word groups, then tool calls, then exactly one done with usage and timings', async () => {
    const clock = createManualClock(1_000);
    const llm = createBuiltinLLM({ clock });
    const chunks = await chunksOf(llm.chat({ messages: [{ role: 'system', content: SOLAR }] }));
    const texts = chunks.filter((c) => c.type === 'text');
    expect(texts.length).toBeGreaterThan(3);
    expect(chunks.at(-1)).toMatchObject({
      type: 'done',
      finishReason: 'stop',
      timings: { startedAt: 1_000, firstTokenAt: 1_000, endedAt: 1_000 },
    });
    expect(chunks.filter((c) => c.type === 'done')).toHaveLength(1);
    const done = chunks.at(-1);
    if (done?.type !== 'done') throw new Error('no done');
    expect(done.usage?.promptTokens).toBeGreaterThan(10);
    expect(done.usage?.completionTokens).toBeGreaterThan(5);

    const ending = await chunksOf(
      llm.chat({
        messages: [
          { role: 'system', content: SOLAR },
          { role: 'assistant', content: 'Hi.' },
          { role: 'user', content: 'bye' },
        ],
        tools: [endCall()],
      }),
    );
    expect(ending.map((c) => c.type)).toEqual(['tool_call', 'done']);
    expect(ending[0]).toMatchObject({
      call: { name: 'end_call', arguments: '{"reason":"user said goodbye"}' },
    });
    expect(ending[1]).toMatchObject({ finishReason: 'tool_calls' });
  });

  it('stops at the next chunk when aborted, ending with done aborted', async () => {
    const llm = createBuiltinLLM({ clock: createManualClock() });
    const controller = new AbortController();
    const chunks: ChatChunk[] = [];
    for await (const chunk of llm.chat({
      messages: [{ role: 'system', content: SOLAR }],
      signal: controller.signal,
    })) {
      chunks.push(chunk);
      if (chunk.type === 'text') controller.abort();
    }
    expect(chunks.map((c) => c.type)).toEqual(['text', 'done']);
    expect(chunks[1]).toMatchObject({ type: 'done', finishReason: 'aborted' });

    const before = new AbortController();
    before.abort();
    const none = await collectChat(
      llm.chat({ messages: [{ role: 'system', content: SOLAR }], signal: before.signal }),
    );
    expect(none).toMatchObject({ text: '', finishReason: 'aborted' });
  });

  it('calls no tool when toolChoice is none, and says goodbye itself', async () => {
    const result: CollectedChat = await collectChat(
      createBuiltinLLM().chat({
        messages: [
          { role: 'system', content: SOLAR },
          { role: 'user', content: 'goodbye' },
        ],
        tools: [endCall()],
        toolChoice: 'none',
      }),
    );
    expect(result.toolCalls).toEqual([]);
    expect(result.text).toMatch(/Goodbye!$/);
  });

  it('cuts the reply at maxTokens with finishReason length', async () => {
    const result = await collectChat(
      createBuiltinLLM().chat({ messages: [{ role: 'system', content: SOLAR }], maxTokens: 5 }),
    );
    expect(result.finishReason).toBe('length');
    expect(result.text.length).toBeLessThanOrEqual(20);
  });

  it('never throws on odd requests', async () => {
    const odd: ChatRequest[] = [
      { messages: [] },
      { messages: [{ role: 'user', content: '' }] },
      {
        messages: [
          { role: 'system', content: '## Knowledge\n' },
          { role: 'user', content: '???' },
        ],
      },
      {
        messages: [{ role: 'user', content: 'hi' }],
        tools: [
          { name: 'end_call', description: '', parameters: {} },
          { name: 'x', description: '', parameters: {} },
        ],
      },
    ];
    for (const request of odd) {
      const result = await collectChat(createBuiltinLLM().chat(request));
      expect(['stop', 'tool_calls']).toContain(result.finishReason);
    }
  });
});
