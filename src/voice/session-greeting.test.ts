import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { createScriptedLLM } from '../providers/testing/index.ts';
import { runScriptedCall } from './testing/index.ts';

// Greeting modes: the agent speaks first (a fixed greeting, or one the model writes), or waits
// for the callee and speaks anyway after the timeout.

describe('greeting modes', () => {
  it('agent_static speaks the greeting after the initial pause, then answers the caller', async () => {
    const { result, leg, conversation, startedAt } = await runScriptedCall({
      settings: { greetingMode: 'agent_static', initialPauseMs: 1_000 },
      script: [
        { waitForAgentSilence: 300 },
        { say: 'What are your opening hours?' },
        { waitForAgentSilence: 300 },
        { hangup: true },
      ],
      replies: [{ text: 'We open at nine. We close at five.' }],
    });
    const firstOut = leg.played[0]?.at ?? 0;
    expect(firstOut - startedAt).toBeGreaterThanOrEqual(1_000);
    expect(firstOut - startedAt).toBeLessThanOrEqual(1_040);
    const greetingEnd = leg.saidAt[0]?.at ?? 0;
    expect(leg.heardText(0, greetingEnd)).toBe('Hello, this is Parley.');
    expect(leg.heardText(greetingEnd)).toBe('We open at nine. We close at five.');
    expect(conversation.transcript().split('\n')).toEqual([
      'bot: Hello, this is Parley.',
      'human: What are your opening hours?',
      'bot: We open at nine. We close at five.',
    ]);
    expect(result).toMatchObject({
      status: 'completed',
      endCallReason: 'human_goodbye',
      answeredBy: 'human',
    });
    expect(result.quality.per_turn.map((t) => t.kind)).toEqual(['greeting', 'reply']);
  });

  it('agent_dynamic has the model write the first line', async () => {
    const clock = createManualClock();
    const llm = createScriptedLLM([{ text: 'Hi, Parley here about your order.' }, { text: 'Sure.' }], {
      clock,
      repeatLast: true,
    });
    const { leg, conversation } = await runScriptedCall({
      settings: { greetingMode: 'agent_dynamic' },
      replies: llm,
      script: [{ waitForAgentSilence: 300 }, { hangup: true }],
    });
    expect(leg.heardText()).toBe('Hi, Parley here about your order.');
    expect(conversation.transcript()).toBe('bot: Hi, Parley here about your order.');
    const first = llm.requests[0];
    expect(first?.messages.at(-1)).toMatchObject({ role: 'system' });
    expect(JSON.stringify(first?.messages.at(-1))).toContain('opening line');
  });

  it('human waits for the callee to speak first', async () => {
    const { leg, conversation, result, startedAt } = await runScriptedCall({
      settings: {
        greetingMode: 'human',
        humanTalkTimeoutMs: 3_000,
        humanTimeoutLine: 'Hello, this is Parley.',
      },
      script: [{ wait: 1_500 }, { say: 'Hello? ' }, { waitForAgentSilence: 300 }, { hangup: true }],
      replies: [{ text: 'Hi, this is Parley calling about your order.' }],
    });
    const saidAt = leg.saidAt[0]?.at ?? 0;
    expect(leg.played[0]?.at).toBeGreaterThan(saidAt);
    expect(leg.heardText()).toBe('Hi, this is Parley calling about your order.');
    expect(conversation.transcript().split('\n')).toEqual([
      'human: Hello?',
      'bot: Hi, this is Parley calling about your order.',
    ]);
    expect(saidAt - startedAt).toBeLessThan(3_000);
    expect(result.answeredBy).toBe('human');
  });

  it('human: a silent callee gets the greeting once the talk timeout passes', async () => {
    const { leg, conversation, result, startedAt } = await runScriptedCall({
      settings: {
        greetingMode: 'human',
        humanTalkTimeoutMs: 3_000,
        humanTimeoutLine: 'Hello, this is Parley.',
      },
      script: [{ wait: 6_000 }, { hangup: true }],
    });
    const firstOut = (leg.played[0]?.at ?? 0) - startedAt;
    expect(firstOut).toBeGreaterThanOrEqual(3_000);
    expect(firstOut).toBeLessThanOrEqual(3_060);
    expect(leg.heardText()).toBe('Hello, this is Parley.');
    expect(conversation.transcript()).toBe('bot: Hello, this is Parley.');
    expect(result).toMatchObject({ status: 'completed', endCallReason: 'human_pick_up_cut_off' });
  });
});
