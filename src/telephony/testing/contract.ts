import { describe, expect, it } from 'vitest';
import { dataSpeechFrames } from '../../media/index.ts';
import type { CalleeFactory, FarEndVoice } from '../sim/index.ts';
import type { CallLeg, Carrier, DialOutcome, DialRequest } from '../types.ts';
import { createDataEar, createDataVoice } from './data-voice.ts';
import { createScriptedCallee } from './scripted-callee.ts';

// The contract every carrier passes (DESIGN.md sections 2 and 5): legs carry audio. The far end
// of an answered call is the scripted callee the suite hands to `makeCarrier`, speaking and
// hearing data speech through the suite's voice: a carrier with a real network behind it
// connects its test far end to those. Our side plays data speech and reads what it hears, so
// every word crosses the leg as 20 ms frames. Numbers for the other outcomes are optional; the
// suite checks only those the subject names.

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
  voice: FarEndVoice;
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
      const subject = await makeCarrier({ callee: contractCallee, voice: createDataVoice() });
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

    /** Says `text` on the leg as data speech. */
    const say = (leg: CallLeg, text: string) => {
      for (const frame of dataSpeechFrames(text)) leg.play(frame);
    };

    it('rings once, then a person answers with a media leg', () =>
      withCarrier(async (subject) => {
        let rang = 0;
        const outcome = await subject.carrier.dial(
          request(subject, subject.numbers.human, { onRinging: () => rang++ }),
        );
        expect(rang).toBe(1);
        expect(outcome).toMatchObject({ kind: 'answered' });
        if (outcome.kind !== 'answered') return;
        expect(typeof outcome.leg.sid).toBe('string');
        expect(outcome.leg.sid).not.toBe('');
        expect(outcome.leg.text).toBeUndefined();
        expect(Number.isFinite(outcome.answeredAt)).toBe(true);
        await outcome.leg.hangup();
      }));

    it('carries both sides as audio: we hear the far end, it hears what we play', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        const ear = createDataEar();
        leg.receive(ear);
        await ear.heard(1);
        say(leg, 'one');
        await ear.heard(2);
        say(leg, 'two');
        await ear.heard(3);
        expect(ear.lines).toEqual(['Hello?', 'You said: one', 'You said: two']);
        await leg.hangup();
      }));

    it('paces playout: playedMs grows with what the far end heard, drained() waits for it', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        leg.receive(createDataEar());
        const frames = dataSpeechFrames('pacing');
        for (const frame of frames) leg.play(frame);
        expect(leg.queuedMs).toBe(frames.length * 20);
        const before = leg.playedMs;
        await leg.drained();
        expect(leg.queuedMs).toBe(0);
        expect(leg.playedMs - before).toBe(frames.length * 20);
        await leg.hangup();
      }));

    it('clear() stops playout at once and drops what was queued', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        leg.receive(createDataEar());
        for (const frame of dataSpeechFrames('a long line that will be cut off')) leg.play(frame);
        leg.clear();
        const played = leg.playedMs;
        expect(leg.queuedMs).toBe(0);
        await leg.drained();
        expect(leg.playedMs).toBe(played);
        await leg.hangup();
      }));

    it('ends remote_hangup when the far end hangs up, after its last words', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        const ear = createDataEar();
        leg.receive(ear);
        for (const line of ['a', 'b', 'c']) {
          await ear.heard(ear.lines.length + 1);
          say(leg, line);
        }
        expect(await leg.ended).toBe('remote_hangup');
        ear.flush();
        expect(ear.lines).toEqual(['Hello?', 'You said: a', 'You said: b', 'Goodbye.']);
        await leg.hangup();
        expect(await leg.ended).toBe('remote_hangup');
      }));

    it('hangs up idempotently: ended resolves local_hangup once; play is ignored after', () =>
      withCarrier(async (subject) => {
        const leg = await answer(subject);
        await leg.hangup();
        await leg.hangup();
        expect(await leg.ended).toBe('local_hangup');
        say(leg, 'ignored');
        expect(leg.queuedMs).toBe(0);
        await leg.drained();
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
      ['machine', (o) => expect(o).toMatchObject({ kind: 'answered' })],
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
          if (which === 'hangsUp') expect(await outcome.leg.ended).toBe('remote_hangup');
          await outcome.leg.hangup();
        }));
    }
  });
}
