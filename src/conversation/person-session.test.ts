import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { createBuiltinLLM } from '../providers/index.ts';
import { createSimulatedPerson } from './person.ts';
import { ConversationSession } from './session.ts';

// Both sides offline: the agent engine on the builtin model talks to the builtin simulated person.

describe('agent session against the simulated person', () => {
  it('runs a few turns and ends with the person saying goodbye', async () => {
    const llm = createBuiltinLLM();
    const session = new ConversationSession({
      agent: {
        prompt:
          'You are Sam from SunCo. You call homeowners to offer a free solar assessment. Ask if they own their home and book a visit.',
        greeting_message_mode: 'agent_dynamic',
      },
      llm,
      style: 'voice',
      clock: createManualClock(),
    });
    const person = createSimulatedPerson({ llm, role: 'callee', persona: { name: 'Jane' }, seed: 'call-42' });

    const exchange: string[] = [`person: ${await person.opening()}`];
    let agentLine = (await session.start()).reply ?? '';
    let hungUp = false;
    for (let i = 0; i < 10 && !hungUp; i++) {
      exchange.push(`agent: ${agentLine}`);
      const turn = await person.reply(agentLine);
      exchange.push(`person: ${turn.text}`);
      hungUp = turn.hangUp;
      const result = await session.respond(turn.text);
      if (result.reply) agentLine = result.reply;
      if (result.ended) break;
    }
    expect(hungUp).toBe(true);
    expect(exchange.at(-1)).toMatch(/goodbye!$/i);
    expect(exchange.length).toBeGreaterThanOrEqual(5);
    expect(session.ended).not.toBeNull();
  });
});
