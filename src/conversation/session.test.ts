import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { LLMError, type ChatRequest } from '../providers/index.ts';
import { createScriptedLLM } from '../providers/testing/index.ts';
import { CONVERSATION_COMPLETE, END_CALL_TOOL, USER_SAID_GOODBYE } from './endings.ts';
import {
  ConversationEndedError,
  ConversationSession,
  FALLBACK_REPLY,
  type SessionOptions,
} from './session.ts';
import { ToolRegistry } from './tools.ts';

const clock = () => createManualClock(Date.UTC(2026, 10, 22, 15, 30)); // a Sunday, 15:30 UTC

function session(llmSteps: Parameters<typeof createScriptedLLM>[0], options: Partial<SessionOptions> = {}) {
  const sessionClock = clock();
  const llm = createScriptedLLM(llmSteps, { clock: sessionClock });
  const s = new ConversationSession({
    style: 'voice',
    clock: sessionClock,
    ...options,
    agent: { prompt: 'You are Sam.', greeting_message: 'Hi!', ...options.agent },
    llm,
  });
  return { s, llm };
}

const systemOf = (r: ChatRequest | undefined) => r?.messages.find((m) => m.role === 'system')?.content;
const endReasonEnum = (r: ChatRequest | undefined) =>
  (
    r?.tools?.find((t) => t.name === END_CALL_TOOL)?.parameters as {
      properties: { reason: { enum: string[] } };
    }
  ).properties.reason.enum;

describe('prompt variables', () => {
  it('fills custom, lead and system variables; unknown ones become empty and are reported', async () => {
    const { s, llm } = session([{ text: 'Sure.' }], {
      agent: {
        prompt:
          'Call {name} ({lead_email}) about {product}. Today is {current_day} {current_date} {current_time} {timezone}. {missing} {"json": 1}',
        greeting_message: 'Hello {name}{unknown_greeting_var}!',
        timezone: 'Europe/Berlin',
      },
      variables: { name: 'Ada', lead_email: 'ada@example.com', product: 'solar' },
    });
    expect(s.unknownVariables).toEqual(['missing', 'unknown_greeting_var']);
    expect((await s.start()).reply).toBe('Hello Ada!');
    await s.respond('hi');
    expect(systemOf(llm.requests[0])).toBe(
      'Call Ada (ada@example.com) about solar. Today is Sunday 2026-11-22 16:30 Europe/Berlin.  {"json": 1}',
    );
  });
});

describe('greeting modes', () => {
  it('agent_static says the greeting without asking the model', async () => {
    const { s, llm } = session([], {
      agent: { greeting_message_mode: 'agent_static', greeting_message: 'Hi there' },
    });
    const pieces: string[] = [];
    expect(await s.start({ onText: (t) => pieces.push(t) })).toEqual({
      reply: 'Hi there',
      ended: null,
      interrupted: false,
    });
    expect(pieces).toEqual(['Hi there']);
    expect(llm.requests).toHaveLength(0);
    expect(s.transcript()).toBe('bot: Hi there');
  });

  it('agent_dynamic asks the model for the first line, without tools, and streams it', async () => {
    const { s, llm } = session([{ text: 'Good afternoon, this is Sam.' }], {
      agent: { greeting_message_mode: 'agent_dynamic' },
    });
    const pieces: string[] = [];
    const result = await s.start({ onText: (t) => pieces.push(t) });
    expect(result.reply).toBe('Good afternoon, this is Sam.');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe('Good afternoon, this is Sam.');
    expect(llm.requests[0]?.tools).toBeUndefined();
    expect(llm.requests[0]?.messages.some((m) => m.role === 'user')).toBe(false);
    expect(s.modelCalls).toHaveLength(1);
  });

  it('human waits for the other side', async () => {
    const { s, llm } = session([{ text: 'Hello, how can I help?' }], {
      agent: { greeting_message_mode: 'human' },
    });
    expect(await s.start()).toEqual({ reply: null, ended: null, interrupted: false });
    expect(s.transcript()).toBe('');
    await s.respond('Hello?');
    expect(s.transcript()).toBe('human: Hello?\nbot: Hello, how can I help?');
    expect(llm.requests[0]?.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });
});

describe('turns', () => {
  it('sends the history and streams the reply', async () => {
    const { s, llm } = session([{ text: 'We sell panels.' }, { text: 'They cost 5000.' }]);
    await s.start();
    const pieces: string[] = [];
    expect((await s.respond('What do you sell?', { onText: (t) => pieces.push(t) })).reply).toBe(
      'We sell panels.',
    );
    expect(pieces.join('')).toBe('We sell panels.');
    await s.respond('How much?');
    expect(llm.requests[1]?.messages).toEqual([
      { role: 'system', content: 'You are Sam.' },
      { role: 'assistant', content: 'Hi!' },
      { role: 'user', content: 'What do you sell?' },
      { role: 'assistant', content: 'We sell panels.' },
      { role: 'user', content: 'How much?' },
    ]);
    expect(s.transcript()).toBe(
      'bot: Hi!\nhuman: What do you sell?\nbot: We sell panels.\nhuman: How much?\nbot: They cost 5000.',
    );
  });

  it('runs tools in a loop and gives the model their results', async () => {
    const tools = new ToolRegistry().register({
      spec: { name: 'lookup_price', description: 'price of a product', parameters: { type: 'object' } },
      execute: async (args) => ({ result: { price: args.product === 'panel' ? 5000 : 0 } }),
    });
    const { s, llm } = session(
      [
        { text: 'Let me check.', toolCalls: [{ name: 'lookup_price', arguments: { product: 'panel' } }] },
        { text: 'It is 5000.' },
      ],
      { tools },
    );
    await s.start();
    const result = await s.respond('Price of a panel?');
    expect(result.reply).toBe('Let me check. It is 5000.');
    expect(s.toolCalls).toEqual([
      {
        turn: 1,
        name: 'lookup_price',
        arguments: '{"product":"panel"}',
        result: { price: 5000 },
        error: null,
      },
    ]);
    const second = llm.requests[1]!.messages;
    expect(second.at(-2)).toMatchObject({
      role: 'assistant',
      content: 'Let me check.',
      toolCalls: [{ name: 'lookup_price' }],
    });
    expect(second.at(-1)).toMatchObject({ role: 'tool', content: '{"price":5000}' });
    expect(llm.requests[0]?.tools?.map((t) => t.name)).toEqual([END_CALL_TOOL, 'lookup_price']);
  });

  it('answers unknown tools, bad arguments and failing tools with an error the model sees', async () => {
    const tools = new ToolRegistry().register({
      spec: { name: 'boom', description: 'fails', parameters: { type: 'object' } },
      execute: async () => {
        throw new Error('backend down');
      },
    });
    const { s, llm } = session(
      [
        {
          toolCalls: [
            { name: 'nope', arguments: {} },
            { name: 'boom', arguments: 'not json' },
            { name: 'boom', arguments: {} },
          ],
        },
        { text: 'Sorry, I could not do that.' },
      ],
      { tools },
    );
    const result = await s.respond('do it');
    expect(result.reply).toBe('Sorry, I could not do that.');
    expect(s.toolCalls.map((c) => c.error)).toEqual([
      'there is no tool named nope',
      'the arguments are not a JSON object',
      'backend down',
    ]);
    expect(llm.requests[1]!.messages.filter((m) => m.role === 'tool')).toHaveLength(3);
  });

  it('gives a fallback line when the model says nothing, and stops tool loops', async () => {
    const { s } = session([{ text: '' }]);
    expect((await s.respond('hello')).reply).toBe(FALLBACK_REPLY);
    const tools = new ToolRegistry().register({
      spec: { name: 'again', description: '', parameters: { type: 'object' } },
      execute: async () => ({ result: 'ok' }),
    });
    const llm = createScriptedLLM([{ toolCalls: [{ name: 'again', arguments: {} }] }], { repeatLast: true });
    const loop = new ConversationSession({ agent: {}, llm, style: 'chat', tools, maxModelCallsPerTurn: 3 });
    expect((await loop.respond('go')).reply).toBe(FALLBACK_REPLY);
    expect(llm.requests).toHaveLength(3);
  });

  it('processes messages strictly in order', async () => {
    const { s } = session([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const replies = await Promise.all([s.respond('a'), s.respond('b'), s.respond('c')]);
    expect(replies.map((r) => r.reply)).toEqual(['one', 'two', 'three']);
    expect(s.transcript()).toBe('human: a\nbot: one\nhuman: b\nbot: two\nhuman: c\nbot: three');
  });

  it('takes the message back when the model fails, and goes on after', async () => {
    const { s } = session([
      { text: 'first' },
      { error: new LLMError('down', 'llm_unavailable', true) },
      { text: 'second' },
    ]);
    await s.respond('a');
    await expect(s.respond('b')).rejects.toThrow('down');
    expect(s.transcript()).toBe('human: a\nbot: first');
    expect(s.userTurns).toBe(1);
    expect((await s.respond('b again')).reply).toBe('second');
    expect(s.transcript()).toBe('human: a\nbot: first\nhuman: b again\nbot: second');
  });

  it('records an exchange made without the model (a fallback line) and goes on', async () => {
    const { s, llm } = session([{ text: 'back again' }], { style: 'chat' });
    await s.recordExchange('hello?', 'Sorry, I cannot answer right now.');
    expect(s.transcript()).toBe('User: hello?\nAgent: Sorry, I cannot answer right now.');
    expect(s.userTurns).toBe(1);
    await s.respond('and now?');
    expect(llm.requests[0]?.messages.slice(1).map((m) => m.content)).toEqual([
      'hello?',
      'Sorry, I cannot answer right now.',
      'and now?',
    ]);
  });

  it('records model timings per call', async () => {
    const { s } = session([{ text: 'ok' }, { text: 'fine' }]);
    await s.respond('a');
    await s.respond('b');
    expect(s.modelCalls.map((c) => c.turn)).toEqual([1, 2]);
    for (const c of s.modelCalls) {
      expect(c.firstTokenMs).toBe(0);
      expect(c.lastTokenMs).toBe(0);
    }
  });
});

describe('ending rules', () => {
  const reasons = {
    end_call_reasons_v2: [
      {
        reason: 'caller asks to be removed',
        closing_message_mode: 'static' as const,
        closing_message: 'You are removed, {name}.',
      },
      { reason: 'caller is rude', closing_message_mode: 'none' as const },
      {
        reason: 'caller wants a human',
        closing_message_mode: 'prompt' as const,
        closing_message: 'a colleague will call back',
      },
    ],
  };

  it('offers the v2 reasons plus the fixed ones to the model', async () => {
    const { s, llm } = session([{ text: 'ok' }], { agent: { ...reasons, end_call_reasons: ['ignored v1'] } });
    await s.respond('hi');
    expect(endReasonEnum(llm.requests[0])).toEqual([
      'caller asks to be removed',
      'caller is rude',
      'caller wants a human',
      USER_SAID_GOODBYE,
      CONVERSATION_COMPLETE,
    ]);
  });

  it('uses end_call_reasons when v2 is absent, with the default closing line', async () => {
    const { s, llm } = session(
      [{ toolCalls: [{ name: END_CALL_TOOL, arguments: { reason: 'not interested' } }] }],
      {
        agent: { end_call_reasons: ['not interested'] },
      },
    );
    const result = await s.respond('I am not interested');
    expect(endReasonEnum(llm.requests[0])).toEqual([
      'not interested',
      USER_SAID_GOODBYE,
      CONVERSATION_COMPLETE,
    ]);
    expect(result.ended).toEqual({ kind: 'custom_end_call', customReason: 'not interested' });
    expect(result.reply).toBe('Thank you for your time. Goodbye!');
  });

  it('static closing: says the configured message with variables', async () => {
    const { s } = session(
      [{ toolCalls: [{ name: END_CALL_TOOL, arguments: { reason: 'caller asks to be removed' } }] }],
      {
        agent: reasons,
        variables: { name: 'Ada' },
      },
    );
    const result = await s.respond('remove me');
    expect(result).toEqual({
      reply: 'You are removed, Ada.',
      ended: { kind: 'custom_end_call', customReason: 'caller asks to be removed' },
      interrupted: false,
    });
    await expect(s.respond('hello?')).rejects.toBeInstanceOf(ConversationEndedError);
  });

  it('none closing: ends silently', async () => {
    const { s } = session(
      [{ toolCalls: [{ name: END_CALL_TOOL, arguments: { reason: 'caller is rude' } }] }],
      { agent: reasons },
    );
    const result = await s.respond('!!!');
    expect(result.reply).toBeNull();
    expect(result.ended).toEqual({ kind: 'custom_end_call', customReason: 'caller is rude' });
  });

  it('prompt closing: the model words the closing line, without tools', async () => {
    const { s, llm } = session(
      [
        { toolCalls: [{ name: END_CALL_TOOL, arguments: { reason: 'caller wants a human' } }] },
        { text: 'A colleague will call you back soon.' },
      ],
      { agent: reasons },
    );
    const result = await s.respond('get me a person');
    expect(result.reply).toBe('A colleague will call you back soon.');
    expect(llm.requests[1]?.tools).toBeUndefined();
    expect(llm.requests[1]?.messages.at(-1)?.content).toContain('a colleague will call back');
  });

  it('the model ending on goodbye or completion', async () => {
    const bye = session([
      { text: 'Bye now!', toolCalls: [{ name: END_CALL_TOOL, arguments: { reason: USER_SAID_GOODBYE } }] },
    ]);
    expect(await bye.s.respond('I have to go')).toEqual({
      reply: 'Bye now!',
      ended: { kind: 'human_goodbye' },
      interrupted: false,
    });
    const done = session([
      { toolCalls: [{ name: END_CALL_TOOL, arguments: { reason: CONVERSATION_COMPLETE } }] },
    ]);
    expect(await done.s.respond('ok booked')).toEqual({
      reply: 'Thank you, goodbye!',
      ended: { kind: 'agent_goodbye' },
      interrupted: false,
    });
  });

  it('a plain goodbye from the other side ends after the reply even if the model does not', async () => {
    const { s } = session([{ text: 'Goodbye, have a nice day!' }]);
    expect(await s.respond('Thanks, bye!')).toEqual({
      reply: 'Goodbye, have a nice day!',
      ended: { kind: 'human_goodbye' },
      interrupted: false,
    });
    const notBye = session([{ text: 'Sure.' }]);
    expect((await notBye.s.respond('bye the way, what about prices?')).ended).toBeNull();
  });

  it('ends after the maximum number of turns', async () => {
    const { s } = session([{ text: 'a' }, { text: 'b' }], { maxTurns: 2 });
    expect((await s.respond('1')).ended).toBeNull();
    expect((await s.respond('2')).ended).toEqual({ kind: 'max_turns' });
  });
});

describe('stored transcript', () => {
  it('masks PII when redact_pii is on, but the model sees what was said', async () => {
    const { s, llm } = session([{ text: 'Noted, I will call +1 415 555 0100.' }], {
      agent: { redact_pii: true },
      style: 'chat',
    });
    await s.respond('My email is ada@example.com and card 4111 1111 1111 1111');
    expect(s.transcript()).toBe(
      'User: My email is [email] and card [card]\nAgent: Noted, I will call [phone].',
    );
    expect(llm.requests[0]?.messages.at(-1)?.content).toContain('ada@example.com');
  });

  it('keeps only the delivered part of an interrupted reply', async () => {
    const controller = new AbortController();
    const { s, llm } = session([{ text: 'This will be cut short' }, { text: 'ok' }]);
    // The other side barges in as the first words arrive.
    const result = await s.respond('talk', { signal: controller.signal, onText: () => controller.abort() });
    expect(result).toEqual({ reply: 'This', ended: null, interrupted: true });
    expect(s.turns.at(-1)).toMatchObject({ speaker: 'agent', text: 'This', interrupted: true });
    s.truncateLastAgentTurn('Th');
    expect(s.turns.at(-1)).toMatchObject({ speaker: 'agent', text: 'Th', interrupted: true });
    await s.respond('next');
    expect(llm.requests[1]?.messages.filter((m) => m.role === 'assistant').at(-1)?.content).toBe('Th');
  });
});

describe('snapshots', () => {
  it('continues a conversation from its stored state, exactly as if it had not stopped', async () => {
    const llm = createScriptedLLM([{ text: 'one' }, { text: 'two' }]);
    const options = {
      agent: { prompt: 'P', greeting_message: 'Hi' },
      llm,
      style: 'chat' as const,
      clock: clock(),
    };
    const first = new ConversationSession(options);
    await first.start();
    await first.respond('a');
    const stored = JSON.parse(JSON.stringify(first.snapshot()));
    const second = new ConversationSession(options, stored);
    await second.respond('b');
    expect(second.transcript()).toBe('Agent: Hi\nUser: a\nAgent: one\nUser: b\nAgent: two');
    expect(llm.requests[1]?.messages.map((m) => m.content)).toEqual(['P', 'Hi', 'a', 'one', 'b']);
    expect(second.userTurns).toBe(2);
    // The snapshot is a copy: changing the session later does not change it.
    expect(stored.turns).toHaveLength(3);
  });

  it('keeps an ended conversation ended', async () => {
    const llm = createScriptedLLM([{ text: 'bye' }]);
    const options = { agent: {}, llm, style: 'chat' as const };
    const first = new ConversationSession(options);
    await first.respond('goodbye');
    const again = new ConversationSession(options, first.snapshot());
    expect(again.ended).toEqual({ kind: 'human_goodbye' });
    await expect(again.respond('hello?')).rejects.toBeInstanceOf(ConversationEndedError);
  });
});

describe('onTurn', () => {
  it('tells a listener of each turn as it is added, until it stops listening', async () => {
    const { s } = session([{ text: 'Sure, for how many?' }, { text: 'Done.' }]);
    const heard: string[] = [];
    const stop = s.onTurn((turn) => heard.push(`${turn.speaker}: ${turn.text}`));
    await s.start();
    await s.respond('A table please');
    expect(heard).toEqual(['agent: Hi!', 'user: A table please', 'agent: Sure, for how many?']);
    expect(s.turns).toHaveLength(3);
    stop();
    await s.respond('Two');
    expect(heard).toHaveLength(3);
    expect(s.turns).toHaveLength(5);
  });
});
