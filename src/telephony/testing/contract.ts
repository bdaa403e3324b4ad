import { describe, expect, it } from 'vitest';
import type { CalleeFactory, CallLeg, Carrier, DialOutcome, DialRequest } from '../types.ts';
import { createScriptedCallee } from './scripted-callee.ts';

// The contract every carrier passes (DESIGN.md section 2). The far end of an answered call is
// the scripted callee the suite hands to `makeCarrier`: a carrier with a real network behind it
// connects its test far end to that callee. Numbers for the other outcomes are optional; the
// suite checks only those the subject names. Subjects should run fast (e.g. `sim` at speed 0).

export interface CarrierContractSubject {
  carrier: Carrier;
  /** Caller id to dial from. */
  from: string;
  /** Numbers reaching each outcome; `human` answers through the suite's callee. */
  numbers: {
    human: string;
    noAnswer?: string;
    busy?: string;
    failed?: string;
    machine?: string;
    /** Answers and hangs up at once. */
    hangsUp?: string;
  };
  close?: () => Promise<void>;
}

export type MakeCarrier = (setup: {
  callee: CalleeFactory;
}) => CarrierContractSubject | Promise<CarrierContractSubject>;

/** The suite's callee: "Hello?", then echoes each line; the third reply says goodbye and hangs up. */
const contractCallee: CalleeFactory = () =>
  createScriptedCallee([
    (said) => `You said: ${said}`,
    (said) => `You said: ${said}`,
    { text: 'Goodbye.', hangUp: true },
  ]);

export function runCarrierContract(name: string, makeCarrier: MakeCarrier): void {
  describe(`carrier contract: ${name}`, () => {
    async function withCarrier(test: (subject: CarrierContractSubject) => Promise<void>) {
      const subject = await makeCarrier({ callee: contractCallee });
      try {
        await test(subject);
      } finally {
        await subject.close?.();
      }
    }

    function request(subject: CarrierContractSubject, to: string, extra: Partial<DialRequest> = {}) {
      return { callId: 'contract-call', from: subject.from, to, ...extra } satisfies DialRequest;
    }

    async function answer(subject: CarrierContractSubject): Promise<CallLeg> {
      const outcome = await subject.carrier.dial(request(subject, subject.numbers.human));
      if (outcome.kind !== 'answered') throw new Error(`expected an answer, got ${outcome.kind}`);
      return outcome.leg;
    }

    it('rings once, then a person answers with a leg', () =>
      withCarrier(async (subject) => {
        let rang = 0;
        const outcome = await subject.carrier.dial(
          request(subject, subject.numbers.human, { onRinging: () => rang++ }),
        );
        expect(rang).toBe(1);
        expect(outcome).toMatchObject({ kind: 'answered', answeredBy: 'human' });
        if (outcome.kind !== 'answered') return;
        expect(typeof outcome.leg.sid).toBe('string');
        expect(outcome.leg.sid).not.toBe('');
        expect(Number.isFinite(outcome.answeredAt)).toBe(true);
        await outcome.leg.hangup();
      }));

    it('delivers the far end lines in order, queued while nobody listens', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        await leg.say('one');
        await leg.say('two');
        expect(await leg.listen()).toBe('Hello?');
        expect(await leg.listen()).toBe('You said: one');
        expect(await leg.listen()).toBe('You said: two');
        await leg.hangup();
      }));

    it('delivers the last line of a far end that hangs up, then null, ending remote_hangup', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        for (const line of ['a', 'b', 'c']) await leg.say(line);
        const heard: (string | null)[] = [];
        for (let line = await leg.listen(); line !== null; line = await leg.listen()) heard.push(line);
        expect(heard).toEqual(['Hello?', 'You said: a', 'You said: b', 'Goodbye.']);
        expect(await leg.ended).toBe('remote_hangup');
        expect(await leg.listen()).toBeNull();
        await leg.say('ignored after the end');
        await leg.hangup();
        expect(await leg.ended).toBe('remote_hangup');
      }));

    it('hangs up idempotently: ended resolves local_hangup once, listen gives null', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        expect(await leg.listen()).toBe('Hello?');
        await leg.hangup();
        await leg.hangup();
        expect(await leg.ended).toBe('local_hangup');
        expect(await leg.listen()).toBeNull();
        await leg.say('ignored');
        expect(await leg.listen()).toBeNull();
      }));

    it('wakes a pending listen with null when we hang up', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        expect(await leg.listen()).toBe('Hello?');
        const pending = leg.listen();
        await leg.hangup();
        expect(await pending).toBeNull();
      }));

    it('rejects an aborted listen without losing the next line', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        expect(await leg.listen()).toBe('Hello?');
        const controller = new AbortController();
        const pending = leg.listen(controller.signal);
        controller.abort(new Error('stop listening'));
        await expect(pending).rejects.toThrow('stop listening');
        await leg.say('again');
        expect(await leg.listen()).toBe('You said: again');
        await leg.hangup();
      }));

    it('cancels a dial aborted before the answer', () =>
      withCarrier(async (subject) => {
        const already = new AbortController();
        already.abort();
        expect(
          await subject.carrier.dial(request(subject, subject.numbers.human, { signal: already.signal })),
        ).toEqual({ kind: 'failed', reason: 'canceled' });
        const controller = new AbortController();
        const outcome = subject.carrier.dial(
          request(subject, subject.numbers.human, {
            signal: controller.signal,
            onRinging: () => controller.abort(),
          }),
        );
        expect(await outcome).toEqual({ kind: 'failed', reason: 'canceled' });
      }));

    it('fails a number that is not E.164 with invalid_number', () =>
      withCarrier(async (subject) => {
        let rang = false;
        const outcome = await subject.carrier.dial(
          request(subject, '555-0100', { onRinging: () => (rang = true) }),
        );
        expect(outcome).toEqual({ kind: 'failed', reason: 'invalid_number' });
        expect(rang).toBe(false);
      }));

    const outcomes: [keyof CarrierContractSubject['numbers'], (o: DialOutcome) => void][] = [
      ['noAnswer', (o) => expect(o).toEqual({ kind: 'no-answer' })],
      ['busy', (o) => expect(o).toEqual({ kind: 'busy' })],
      ['failed', (o) => expect(o).toMatchObject({ kind: 'failed' })],
      ['machine', (o) => expect(o).toMatchObject({ kind: 'answered', answeredBy: 'machine' })],
      ['hangsUp', (o) => expect(o).toMatchObject({ kind: 'answered' })],
    ];
    for (const [which, check] of outcomes) {
      it(`gives the ${which} outcome for its number (when the subject has one)`, () =>
        withCarrier(async (subject) => {
          const number = subject.numbers[which];
          if (number === undefined) return;
          let rang = 0;
          const outcome = await subject.carrier.dial(request(subject, number, { onRinging: () => rang++ }));
          expect(rang).toBe(1);
          check(outcome);
          if (outcome.kind !== 'answered') return;
          if (which === 'hangsUp') {
            expect(await outcome.leg.ended).toBe('remote_hangup');
            expect(await outcome.leg.listen()).toBeNull();
          }
          await outcome.leg.hangup();
        }));
    }
  });
}
