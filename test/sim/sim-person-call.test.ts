import { describe, expect, it } from 'vitest';
import { ConversationSession, createSimulatedPerson } from '../../src/conversation/index.ts';
import { createManualClock } from '../../src/core/index.ts';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { createSimCarrier } from '../../src/telephony/index.ts';

// A whole offline call: the `sim` carrier's callee is the builtin simulated person, the agent is
// the conversation engine on the builtin model, both joined as the composition root joins them.

describe('a sim call between the agent and the simulated person', () => {
  it('answers, talks over the leg, and ends with the person hanging up after its goodbye', async () => {
    const llm = createBuiltinLLM();
    const carrier = createSimCarrier({
      speed: 0,
      clock: createManualClock(),
      callee: (context) =>
        createSimulatedPerson({
          llm,
          role: 'callee',
          persona: { name: 'Jane' },
          seed: context.callId,
        }),
    });
    const outcome = await carrier.dial({
      callId: 'call-1',
      from: '+14155550100',
      to: '+14155550123',
    });
    if (outcome.kind !== 'answered') throw new Error(outcome.kind);
    const leg = outcome.leg.text;
    if (!leg) throw new Error('expected a text leg');
    const session = new ConversationSession({
      agent: {
        prompt:
          'You are Sam from SunCo. You call homeowners to offer a free solar assessment. Ask if they own their home.',
        greeting_message_mode: 'agent_dynamic',
      },
      llm,
      style: 'voice',
    });

    expect(await leg.listen()).toBe('Hello?');
    const greeting = (await session.start()).reply;
    if (greeting) await leg.say(greeting);
    for (let line = await leg.listen(); line !== null; line = await leg.listen()) {
      const turn = await session.respond(line);
      if (turn.reply) await leg.say(turn.reply);
      if (turn.ended) break;
    }
    expect(await outcome.leg.ended).toBe('remote_hangup');
    expect(outcome.leg.log.at(-1)).toMatchObject({
      from: 'remote',
      text: expect.stringMatching(/goodbye!$/i),
    });
    expect(outcome.leg.log.filter((e) => e.from === 'local').length).toBeGreaterThanOrEqual(2);
  });
});
