import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { createBuiltinLLM } from '../providers/index.ts';
import { ConversationSession } from './session.ts';

// The engine driving the offline builtin model: what a user on a fresh machine gets.

describe('a conversation with the builtin model', () => {
  it('greets, answers, and ends when the caller says goodbye', async () => {
    const session = new ConversationSession({
      agent: {
        prompt:
          'You are Sam from SunCo. You call homeowners to offer a free solar assessment. Ask if they own their home and book a visit.',
        greeting_message_mode: 'agent_dynamic',
      },
      llm: createBuiltinLLM(),
      style: 'voice',
      clock: createManualClock(),
    });
    const greeting = await session.start();
    expect(greeting.reply).toMatch(/Sam/);
    expect(greeting.reply).toMatch(/SunCo/);
    const owns = await session.respond('Yes, I do own it.');
    expect(owns.reply).toBeTruthy();
    expect(owns.ended).toBeNull();
    const bye = await session.respond('Goodbye!');
    expect(bye.ended).toEqual({ kind: 'human_goodbye' });
    expect(
      session
        .transcript()
        .split('\n')
        .map((l) => l.split(':')[0]),
    ).toEqual(['bot', 'human', 'bot', 'human', 'bot']);
  });

  it('ends on a custom reason with its static closing line', async () => {
    const session = new ConversationSession({
      agent: {
        prompt: 'You are Ava from Daily Digest. You offer a free newsletter subscription.',
        greeting_message: 'Hi, this is Ava from Daily Digest!',
        end_call_reasons_v2: [
          {
            reason: 'the caller asks to be removed from the list',
            closing_message_mode: 'static',
            closing_message: 'Understood, you will not hear from us again.',
          },
        ],
      },
      llm: createBuiltinLLM(),
      style: 'chat',
    });
    await session.start();
    const result = await session.respond('Please remove me from your list.');
    expect(result).toEqual({
      reply: 'Understood, you will not hear from us again.',
      ended: { kind: 'custom_end_call', customReason: 'the caller asks to be removed from the list' },
      interrupted: false,
    });
  });
});
