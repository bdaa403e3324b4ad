import { describe, expect, it } from 'vitest';
import { createBuiltinLLM } from '../providers/index.ts';
import { createSimulatedPerson, type SimulatedPersonOptions } from './person.ts';

// The simulated person on the offline builtin model: fixed rules (docs/builtin-model.md).

const llm = createBuiltinLLM();
const make = (options: Partial<SimulatedPersonOptions> = {}) =>
  createSimulatedPerson({ llm, role: 'callee', persona: {}, ...options });

describe('builtin simulated person', () => {
  it('answers the phone with "Hello?"', async () => {
    expect(await make().opening()).toBe('Hello?');
  });

  it('answers questions from its persona', async () => {
    const person = make({
      persona: {
        name: 'Jane Doe',
        variables: {
          lead_email: 'jane@example.com',
          phone: '+14155550123',
          company: 'Acme',
          household_size: 4,
        },
      },
      maxTurns: 20,
    });
    // Facts as they are said aloud: the sim's lines are synthesized and recognized.
    expect((await person.reply('Hi! May I ask your name?')).text).toBe('My name is Jane Doe.');
    expect((await person.reply('Thanks. Could I have your email address?')).text).toBe(
      'My email is jane at example dot com.',
    );
    expect((await person.reply("What's the best phone number to reach you?")).text).toBe(
      'My number is one four one five five five five zero one two three.',
    );
    expect((await person.reply('Which company are you with?')).text).toBe('I work for Acme.');
    expect((await person.reply('What is your household size?')).text).toBe('It is four.');
    expect((await person.reply('Do you own your home?')).text).toBe('Yes, I own my home.');
    expect((await person.reply('What day and time would suit you?')).text).toMatch(
      /^\w+ \w+ at \w+ works for me\.$/,
    );
    expect((await person.reply('Do you prefer mornings or afternoons?')).text).toMatch(
      /^I prefer (?:mornings|afternoons)\.$/,
    );
    expect((await person.reply('How much is your electricity bill each month?')).text).toMatch(
      /dollars a month/,
    );
    expect((await person.reply('How are you today?')).text).toBe('I am good, thank you.');
    expect((await person.reply('What is the meaning of life?')).text).toMatch(/sure|know|check/);
    expect(await person.reply('Great, I have booked you in.')).toMatchObject({ hangUp: false });
  });

  it('says what it does not know', async () => {
    const person = make({ maxTurns: 10 });
    expect((await person.reply('Could I have your email?')).text).toBe('I would rather not give my email.');
    expect((await person.reply('What is your name?')).text).toBe('I would rather not say.');
  });

  it('varies yes/no answers and acknowledgements by seed, deterministically', async () => {
    const answers = async (seed: string) => {
      const person = make({ seed, maxTurns: 50 });
      const out: string[] = [];
      for (let i = 0; i < 12; i++)
        out.push((await person.reply(i % 2 ? 'Would you be interested?' : 'Okay.')).text);
      return out;
    };
    const a = await answers('call-1');
    expect(await answers('call-1')).toEqual(a);
    const all = [a, await answers('call-2'), await answers('call-3')].flat();
    const yesNo = ['Yes, I would be interested.', 'No, I would not be interested.'];
    expect(all).toContain(yesNo[0]);
    expect(all).toContain(yesNo[1]);
    expect(new Set(all.filter((t) => !yesNo.includes(t))).size).toBeGreaterThan(1);
    // Without a seed the person always says yes.
    const plain = make({ maxTurns: 50 });
    for (let i = 0; i < 8; i++) expect((await plain.reply('Would you be interested?')).text).toBe(yesNo[0]);
  });

  it('says goodbye and hangs up when the agent says goodbye or asks for anything else', async () => {
    expect(await make().reply('Thank you for your time. Goodbye!')).toEqual({
      text: 'Okay, thanks, goodbye!',
      hangUp: true,
    });
    expect(await make().reply('Is there anything else I can help you with?')).toEqual({
      text: 'No, that is all, thanks. Goodbye!',
      hangUp: true,
    });
  });

  it('hangs up on its maxTurns-th reply, answering first', async () => {
    const person = make({ maxTurns: 2 });
    expect(await person.reply('Do you own your home?')).toEqual({
      text: 'Yes, I own my home.',
      hangUp: false,
    });
    expect(await person.reply('Would you like a visit?')).toEqual({
      text: 'Yes, I would like a visit. Okay, thanks, goodbye!',
      hangUp: true,
    });
    const other = make({ maxTurns: 1 });
    expect(await other.reply('Okay, noted.')).toEqual({ text: 'Okay, thanks, goodbye!', hangUp: true });
  });

  it('answers a line heard through a recognizer, without punctuation, as the question it was', async () => {
    const person = make({ persona: { name: 'Ann' }, maxTurns: 20 });
    const heard = async (line: string) => (await person.reply(line)).text;
    expect(await heard('hello do you own your home')).toBe('Yes, I own my home.');
    // A misheard question is not echoed back as nonsense.
    expect(await heard('hello do you on your home')).toBe('Yes, I do.');
    expect(await heard('thank you what time works best for you')).toMatch(/^\w+ \w+ at \w+ works for me\.$/);
    expect(await heard('how much do you pay each month')).toMatch(/dollars a month/);
    expect(await heard('hello do you pay each month')).toMatch(/dollars a month/);
    expect(await heard('may i have your name')).toBe('My name is Ann.');
    expect(await heard('do you prefer morning so afternoons')).toBe('I prefer afternoons.');
    expect(await heard('hi ann this is sam from sunco')).toMatch(/^(?:Okay|Sure|Alright|Yes)/);
    expect(await person.reply('thank you is there anything else i can help you with')).toEqual({
      text: 'No, that is all, thanks. Goodbye!',
      hangUp: true,
    });
  });

  describe('as a caller', () => {
    const caller = (prompt: string | undefined, name?: string) =>
      make({ role: 'caller', persona: { ...(prompt ? { prompt } : {}), ...(name ? { name } : {}) } });

    it('opens with its purpose from the persona prompt', async () => {
      expect(await caller(undefined).opening()).toBe('Hi, I have a question.');
      expect(await caller('You are calling about your last invoice, which looks too high.').opening()).toBe(
        "Hi, I'm calling about my last invoice, which looks too high.",
      );
      expect(await caller('You want to reschedule your cleaning. Be polite.', 'Ann').opening()).toBe(
        "Hi, this is Ann. I'd like to reschedule my cleaning.",
      );
      expect(await caller("You'd like to know your balance.").opening()).toBe(
        "Hi, I'd like to know my balance.",
      );
      expect(await caller('You need to cancel your order.').opening()).toBe('Hi, I need to cancel my order.');
      expect(await caller('Start with "Hello, is this the bakery?" then ask for prices.').opening()).toBe(
        'Hello, is this the bakery?',
      );
    });

    it('restates its purpose when the agent asks how it can help', async () => {
      const person = caller('You are calling to ask about opening hours.');
      expect((await person.reply('Hi, you have reached Acme. How can I help you today?')).text).toBe(
        "I'm calling to ask about opening hours.",
      );
    });
  });
});
