import { describe, expect, it } from 'vitest';
import { LLMError } from '../providers/index.ts';
import { createScriptedLLM } from '../providers/testing/index.ts';
import { createSimulatedPerson, PERSON_FALLBACK } from './person.ts';

// The simulated person on a real (here: scripted) model.

describe('simulated person on a language model', () => {
  it('plays the persona from a system prompt and replies with the model text', async () => {
    const llm = createScriptedLLM([{ text: 'Sure, it is jane@example.com.' }]);
    const person = createSimulatedPerson({
      llm,
      role: 'callee',
      persona: {
        name: 'Jane Doe',
        prompt: 'You are busy and a little impatient.',
        variables: { email: 'jane@example.com', company: 'Acme' },
      },
    });
    expect(await person.opening()).toBe('Hello?');
    expect(await person.reply('Hi Jane, could I have your email?')).toEqual({
      text: 'Sure, it is jane@example.com.',
      hangUp: false,
    });
    const request = llm.requests[0];
    const system = request?.messages[0];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('just answered a phone call');
    expect(system?.content).toContain('Your name is Jane Doe.');
    expect(system?.content).toContain('- email: jane@example.com');
    expect(system?.content).toContain('- company: Acme');
    expect(system?.content).toContain('You are busy and a little impatient.');
    expect(system?.content).toMatch(/say goodbye/);
    // The agent is the "user"; the person's own opening is the "assistant".
    expect(request?.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hello?' },
      { role: 'user', content: 'Hi Jane, could I have your email?' },
    ]);
  });

  it('hangs up after a goodbye-ish reply, and cleans labels and stage directions', async () => {
    const llm = createScriptedLLM([{ text: 'Jane: *sighs* Okay, thanks. Have a nice day!' }]);
    const person = createSimulatedPerson({ llm, role: 'callee', persona: { name: 'Jane' } });
    expect(await person.reply('That is all from me.')).toEqual({
      text: 'Okay, thanks. Have a nice day!',
      hangUp: true,
    });
  });

  it('hangs up when the agent says goodbye', async () => {
    const person = createSimulatedPerson({
      llm: createScriptedLLM([{ text: 'You too.' }]),
      role: 'callee',
      persona: {},
    });
    expect(await person.reply('Thanks for your time. Goodbye!')).toEqual({ text: 'You too.', hangUp: true });
  });

  it('says its last reply with a wrap-up instruction and hangs up at maxTurns', async () => {
    const llm = createScriptedLLM([{ text: 'Yes.' }, { text: 'Okay, that sounds fine.' }]);
    const person = createSimulatedPerson({ llm, role: 'callee', persona: {}, maxTurns: 2 });
    expect(await person.reply('Do you own your home?')).toEqual({ text: 'Yes.', hangUp: false });
    expect(await person.reply('Would you like a visit?')).toEqual({
      text: 'Okay, that sounds fine.',
      hangUp: true,
    });
    expect(llm.requests[1]?.messages.at(-1)).toMatchObject({
      role: 'system',
      content: expect.stringMatching(/last reply/),
    });
    expect(await person.reply('Hello?')).toEqual({ text: '', hangUp: true });
    expect(llm.requests).toHaveLength(2);
  });

  it('as a caller, asks the model for its opening line', async () => {
    const llm = createScriptedLLM([{ text: '"Hi, I want to move my appointment."' }]);
    const person = createSimulatedPerson({
      llm,
      role: 'caller',
      persona: { prompt: 'You want to move your dental appointment to next week.' },
    });
    expect(await person.opening()).toBe('Hi, I want to move my appointment.');
    expect(llm.requests[0]?.messages[0]?.content).toContain('phoning a business');
    expect(llm.requests[0]?.messages.at(-1)?.content).toMatch(/first line/);
  });

  it('never throws: a failing model gives a short fallback line and hangs up', async () => {
    const failure = new LLMError('down', 'llm_unavailable', true);
    const person = createSimulatedPerson({
      llm: createScriptedLLM([{ error: failure }, { error: failure }]),
      role: 'caller',
      persona: { prompt: 'You are calling about your invoice.' },
    });
    expect(await person.opening()).toBe("Hi, I'm calling about my invoice.");
    expect(await person.reply('How can I help?')).toEqual({ text: PERSON_FALLBACK, hangUp: true });
  });

  it('an aborted reply hangs up silently', async () => {
    const controller = new AbortController();
    controller.abort();
    const person = createSimulatedPerson({
      llm: createScriptedLLM([{ text: 'Hello there, how are you?' }]),
      role: 'callee',
      persona: {},
    });
    expect(await person.reply('Hi!', controller.signal)).toEqual({ text: '', hangUp: true });
  });
});
