import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import { createScriptedCallee, runCarrierContract } from '../testing/index.ts';
import { createSimCarrier, type SimDialOutcome } from './carrier.ts';
import { voicemailGreeting } from './far-end.ts';
import type { SimLeg } from './text-leg.ts';
import type { CalleeContext, CalleeFactory } from './types.ts';
import { speakingMs, THINK_MS } from './timing.ts';

const FROM = '+14155550100';
const to = (lastFour: string) => `+1415555${lastFour}`;
const HUMAN = to('0123');

// Audio mode: ringing at speed 0, the audio itself paced in real time (20 ms frames).
runCarrierContract('sim', ({ callee, voice }) => ({
  carrier: createSimCarrier({ callee, voice, speed: 0 }),
  from: FROM,
  numbers: {
    human: HUMAN,
    noAnswer: to('0000'),
    busy: to('1111'),
    failed: to('2222'),
    machine: to('3333'),
    hangsUp: to('4444'),
  },
}));

const echo: CalleeFactory = () => createScriptedCallee([(said) => `You said: ${said}`]);

/** The text-mode leg of an answered call (these carriers have no far-end voice). */
function answered(outcome: SimDialOutcome): SimLeg {
  if (outcome.kind !== 'answered') throw new Error(`expected an answer, got ${outcome.kind}`);
  if (!outcome.leg.text) throw new Error('expected a text leg');
  return outcome.leg as SimLeg;
}

/** Tracks whether a promise has settled, to check that nothing happens before the clock moves. */
function track<T>(promise: Promise<T>) {
  const state = { settled: false, value: undefined as T | undefined };
  void promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return state;
}

describe('sim carrier outcomes by last four digits (speed 0)', () => {
  const carrier = (name?: string) =>
    createSimCarrier({
      callee: () =>
        Object.assign(createScriptedCallee([(said) => `You said: ${said}`]), name ? { name } : {}),
      speed: 0,
      clock: createManualClock(),
    });
  const dial = (number: string, name?: string) =>
    carrier(name).dial({ callId: 'c1', from: FROM, to: number });

  it('0000 no-answer, 1111 busy, 2222 carrier_failure', async () => {
    expect(await dial(to('0000'))).toEqual({ kind: 'no-answer' });
    expect(await dial(to('1111'))).toEqual({ kind: 'busy' });
    expect(await dial(to('2222'))).toEqual({ kind: 'failed', reason: 'carrier_failure' });
  });

  it('3333 is a machine: greeting ending in [beep], then it records what we say', async () => {
    const outcome = await dial(to('3333'), 'Jane Doe');
    const leg = answered(outcome);
    expect(leg.text.answeredBy).toBe('machine');
    const greeting = await leg.text.listen();
    expect(greeting).toBe(`${voicemailGreeting('Jane Doe')} [beep]`);
    expect(greeting).toBe(
      "Hi, you've reached Jane Doe. I can't take your call right now, please leave a message after the tone. [beep]",
    );
    await leg.text.say('Hi Jane, this is Sam from SunCo. Please call us back.');
    await leg.hangup();
    expect(await leg.ended).toBe('local_hangup');
    expect(leg.log.map((e) => [e.from, e.text])).toEqual([
      ['remote', greeting],
      ['local', 'Hi Jane, this is Sam from SunCo. Please call us back.'],
    ]);
  });

  it('4444 answers and hangs up before saying anything', async () => {
    const leg = answered(await dial(to('4444')));
    expect(leg.endReason).toBe('remote_hangup');
    expect(await leg.text.listen()).toBeNull();
    expect(leg.log).toEqual([]);
  });

  it('any other number is a person built by the factory, with the call context', async () => {
    const contexts: CalleeContext[] = [];
    const sim = createSimCarrier({
      callee: (context) => {
        contexts.push(context);
        return createScriptedCallee([{ text: 'Bye now.', hangUp: true }], { opening: 'Hi, Jane here.' });
      },
      speed: 0,
    });
    const leg = answered(await sim.dial({ callId: 'c9', from: FROM, to: HUMAN }));
    expect(contexts).toEqual([{ callId: 'c9', from: FROM, to: HUMAN }]);
    expect(leg.text.answeredBy).toBe('human');
    expect(await leg.text.listen()).toBe('Hi, Jane here.');
    await leg.text.say('Hello Jane!');
    expect(await leg.text.listen()).toBe('Bye now.');
    expect(await leg.text.listen()).toBeNull();
    expect(leg.endReason).toBe('remote_hangup');
    expect(leg.log.map((e) => `${e.from}: ${e.text}`)).toEqual([
      'remote: Hi, Jane here.',
      'local: Hello Jane!',
      'remote: Bye now.',
    ]);
  });

  it('a silent opening waits for us to speak first', async () => {
    const sim = createSimCarrier({ callee: () => createScriptedCallee(['Yes?'], { opening: '' }), speed: 0 });
    const leg = answered(await sim.dial({ callId: 'c', from: FROM, to: HUMAN }));
    await leg.text.say('Hello?');
    expect(await leg.text.listen()).toBe('Yes?');
    await leg.hangup();
  });

  it('rejects an invalid caller id too, and uses the ids option for sids', async () => {
    const sim = createSimCarrier({ callee: echo, speed: 0, ids: () => 'CA-fixed' });
    expect(await sim.dial({ callId: 'c', from: 'anonymous', to: HUMAN })).toEqual({
      kind: 'failed',
      reason: 'invalid_number',
    });
    expect(answered(await sim.dial({ callId: 'c', from: FROM, to: HUMAN })).sid).toBe('CA-fixed');
  });

  it('drops the line (carrier_failure) when the simulated person breaks', async () => {
    const boom = new Error('callee broke');
    const sim = createSimCarrier({
      callee: () => ({
        opening: async () => 'Hello?',
        reply: async () => {
          throw boom;
        },
      }),
      speed: 0,
    });
    const leg = answered(await sim.dial({ callId: 'c', from: FROM, to: HUMAN }));
    await leg.text.say('Hi');
    expect(await leg.ended).toBe('carrier_failure');
    expect(leg.error).toBe(boom);
    expect(await leg.text.listen()).toBe('Hello?');
    expect(await leg.text.listen()).toBeNull();
  });

  it('refuses a negative speed', () => {
    expect(() => createSimCarrier({ callee: echo, speed: -1 })).toThrow(RangeError);
  });
});

describe('sim carrier timing on a manual clock', () => {
  it('at speed 1 nothing happens until the clock moves: rings 3 s, then the opening is spoken', async () => {
    const clock = createManualClock();
    const start = clock.now();
    const sim = createSimCarrier({ callee: echo, clock });
    let rang = false;
    const dial = track(sim.dial({ callId: 'c', from: FROM, to: HUMAN, onRinging: () => (rang = true) }));
    expect(rang).toBe(true);
    await clock.tick(2_999);
    expect(dial.settled).toBe(false);
    await clock.tick(1);
    expect(dial.settled).toBe(true);
    const outcome = dial.value as SimDialOutcome;
    expect(outcome).toMatchObject({ kind: 'answered', answeredAt: start + 3_000 });
    const leg = answered(outcome);

    // "Hello?" takes 6 × 60 ms to say.
    const opening = track(leg.text.listen());
    await clock.tick(speakingMs('Hello?') - 1);
    expect(opening.settled).toBe(false);
    await clock.tick(1);
    expect(opening.value).toBe('Hello?');

    // A reply comes after hearing our line, thinking, and saying the reply.
    await leg.text.say('Good morning');
    const reply = track(leg.text.listen());
    const due = speakingMs('Good morning') + THINK_MS + speakingMs('You said: Good morning');
    await clock.tick(due - 1);
    expect(reply.settled).toBe(false);
    await clock.tick(1);
    expect(reply.value).toBe('You said: Good morning');
    await leg.hangup();
    expect(clock.pendingSleeps).toBe(0);
  });

  it('0000 rings for 20 s before no-answer; 1111 is busy after the 3 s ring', async () => {
    const clock = createManualClock();
    const sim = createSimCarrier({ callee: echo, clock });
    const noAnswer = track(sim.dial({ callId: 'c', from: FROM, to: to('0000') }));
    const busy = track(sim.dial({ callId: 'c', from: FROM, to: to('1111') }));
    await clock.tick(3_000);
    expect(busy.value).toEqual({ kind: 'busy' });
    await clock.tick(16_999);
    expect(noAnswer.settled).toBe(false);
    await clock.tick(1);
    expect(noAnswer.value).toEqual({ kind: 'no-answer' });
  });

  it('scales every wait by speed (0.1 = ten times faster)', async () => {
    const clock = createManualClock();
    const sim = createSimCarrier({ callee: echo, clock, speed: 0.1 });
    const dial = track(sim.dial({ callId: 'c', from: FROM, to: HUMAN }));
    await clock.tick(299);
    expect(dial.settled).toBe(false);
    await clock.tick(1);
    expect(dial.settled).toBe(true);
  });

  it('a machine hangs up 60 s after its beep', async () => {
    const clock = createManualClock();
    const sim = createSimCarrier({ callee: echo, clock });
    const dial = track(sim.dial({ callId: 'c', from: FROM, to: to('3333') }));
    await clock.tick(3_000);
    const leg = answered(dial.value as SimDialOutcome);
    const greeting = `${voicemailGreeting()} [beep]`;
    await clock.tick(speakingMs(greeting));
    expect(await leg.text.listen()).toBe(greeting);
    await leg.text.say('Please call us back.');
    await clock.tick(59_999);
    expect(leg.endReason).toBeNull();
    await clock.tick(1);
    expect(await leg.ended).toBe('remote_hangup');
    expect(leg.log.at(-1)).toMatchObject({ from: 'local', text: 'Please call us back.' });
  });

  it('an abort while ringing cancels the dial and leaves no sleep behind', async () => {
    const clock = createManualClock();
    const sim = createSimCarrier({ callee: echo, clock });
    const controller = new AbortController();
    const dial = sim.dial({ callId: 'c', from: FROM, to: HUMAN, signal: controller.signal });
    await clock.tick(1_000);
    controller.abort();
    expect(await dial).toEqual({ kind: 'failed', reason: 'canceled' });
    expect(clock.pendingSleeps).toBe(0);
  });

  it('our hang-up aborts a reply in flight', async () => {
    const clock = createManualClock();
    let replySignal: AbortSignal | undefined;
    const sim = createSimCarrier({
      callee: () => ({
        opening: async () => '',
        reply: (_said, signal) => {
          replySignal = signal;
          return new Promise(() => {});
        },
      }),
      clock,
    });
    const dial = track(sim.dial({ callId: 'c', from: FROM, to: HUMAN }));
    await clock.tick(3_000);
    const leg = answered(dial.value as SimDialOutcome);
    await leg.text.say('Hi');
    await clock.tick(speakingMs('Hi') + THINK_MS);
    expect(replySignal?.aborted).toBe(false);
    await leg.hangup();
    expect(replySignal?.aborted).toBe(true);
    expect(await leg.ended).toBe('local_hangup');
  });
});

describe('sim inbound calls', () => {
  /** Takes every call pushed to it, answering with the id `in<n>`, and keeps the legs. */
  function answering(sim: ReturnType<typeof createSimCarrier>) {
    const legs: SimLeg[] = [];
    const offered: { from: string; to: string; workspaceId?: string }[] = [];
    sim.onIncoming(async (call) => {
      offered.push({
        from: call.from,
        to: call.to,
        ...(call.workspaceId ? { workspaceId: call.workspaceId } : {}),
      });
      const callId = `in${legs.length + 1}`;
      legs.push((await call.answer(callId)) as SimLeg);
      return { callId, status: 'in-progress' };
    });
    return { legs, offered };
  }

  it('pushes the call to the handler; answered, the caller factory builds the person', async () => {
    const contexts: CalleeContext[] = [];
    const sim = createSimCarrier({
      callee: echo,
      caller: (context) => {
        contexts.push(context);
        return createScriptedCallee([{ text: 'Great, thanks. Bye!', hangUp: true }], {
          opening: "Hi, I'm calling about my order.",
        });
      },
      speed: 0,
    });
    const { legs, offered } = answering(sim);
    const taken = await sim.ring({ from: '+14155550199', to: FROM, workspaceId: 'w1' });
    expect(taken).toEqual({ callId: 'in1', status: 'in-progress' });
    expect(offered).toEqual([{ from: '+14155550199', to: FROM, workspaceId: 'w1' }]);
    expect(contexts).toEqual([{ callId: 'in1', from: '+14155550199', to: FROM }]);
    const leg = legs[0]!;
    expect(await leg.text.listen()).toBe("Hi, I'm calling about my order.");
    await leg.text.say('It ships tomorrow.');
    expect(await leg.text.listen()).toBe('Great, thanks. Bye!');
    expect(await leg.ended).toBe('remote_hangup');
  });

  it('uses the callee factory when no caller factory is given, and checks numbers', async () => {
    const sim = createSimCarrier({ callee: echo, speed: 0 });
    const { legs } = answering(sim);
    await sim.ring({ from: '+14155550199', to: FROM });
    expect(await legs[0]!.text.listen()).toBe('Hello?');
    await expect(sim.ring({ from: 'nope', to: FROM })).rejects.toThrow(/E\.164/);
    expect(legs).toHaveLength(1);
  });

  it('without a handler nobody takes the call; a rejection reaches the far end', async () => {
    const sim = createSimCarrier({ callee: echo, speed: 0 });
    await expect(sim.ring({ from: '+14155550199', to: FROM })).rejects.toThrow(/no inbound calls/);
    sim.onIncoming(async (call) => {
      call.reject('busy');
      return { callId: 'in1', status: 'busy' };
    });
    expect(await sim.ring({ from: '+14155550199', to: FROM })).toEqual({ callId: 'in1', status: 'busy' });
    expect(sim.rejections).toEqual(['busy']);
  });
});
