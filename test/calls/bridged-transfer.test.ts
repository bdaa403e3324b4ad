import { describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import {
  SESSION_RATE,
  createDataSpeechReader,
  samplesPerFrame,
  type AudioFrame,
  type MediaReceiver,
} from '../../src/media/index.ts';
import { createFakeSTT, createFakeTTS, createFakeVAD } from '../../src/providers/testing/index.ts';
import type { TransferRequest } from '../../src/runtime/index.ts';
import {
  TransferRefusedError,
  type CallLeg,
  type Carrier,
  type DialOutcome,
  type DialRequest,
  type LegEndReason,
} from '../../src/telephony/index.ts';
import { legCallControl, type CallControlDeps } from '../../src/calls/index.ts';

// The transfers Parley carries out itself, on legs and a carrier that record what happens to
// them, on a manual clock: the agent's line is given up and back, the caller holds with music,
// the target gets keys and the briefing, then the audio is relayed both ways until one side
// hangs up; and the cold hand-over with its fallback to a bridge when the carrier refuses it.

interface FakeLeg {
  leg: CallLeg;
  played: AudioFrame[];
  keys: string[];
  hungUp: boolean;
  /** The far end says a frame (or presses a key). */
  say(frame: AudioFrame): void;
  press(digit: string): void;
  end(reason: LegEndReason): void;
}

function fakeLeg(sid: string, transfer?: (to: string) => Promise<void>): FakeLeg {
  let receiver: MediaReceiver | null = null;
  let endReason: LegEndReason | null = null;
  let resolveEnded: (reason: LegEndReason) => void = () => undefined;
  const ended = new Promise<LegEndReason>((resolve) => (resolveEnded = resolve));
  const fake: FakeLeg = {
    played: [],
    keys: [],
    hungUp: false,
    say: (frame) => receiver?.audio(frame),
    press: (digit) => receiver?.dtmf(digit, 0),
    end(reason) {
      if (endReason) return;
      endReason = reason;
      resolveEnded(reason);
    },
    leg: {
      sid,
      ended,
      receive(next) {
        receiver = next;
      },
      play(frame) {
        if (!endReason) fake.played.push(frame);
      },
      clear: () => undefined,
      get playedMs() {
        return fake.played.length * 20;
      },
      queuedMs: 0,
      drained: async () => undefined,
      async sendDtmf(digits) {
        fake.keys.push(digits);
      },
      transfer: transfer ?? (async () => Promise.reject(new Error('no transfer'))),
      async hangup() {
        fake.hungUp = true;
        fake.end('local_hangup');
      },
    },
  };
  return fake;
}

function fakeCarrier(answer: (request: DialRequest) => Promise<DialOutcome>) {
  const dials: DialRequest[] = [];
  const carrier: Carrier = {
    name: 'sip',
    dial: (request) => {
      dials.push(request);
      return answer(request);
    },
  };
  return { carrier, dials };
}

/** A dial that never answers: it ends `canceled` when aborted, as carriers do. */
const ringForever = (request: DialRequest) =>
  new Promise<DialOutcome>((resolve) =>
    request.signal?.addEventListener('abort', () => resolve({ kind: 'failed', reason: 'canceled' })),
  );

const textOf = (frames: AudioFrame[]) => {
  const reader = createDataSpeechReader();
  for (const frame of frames) reader.push(frame);
  return reader.text;
};
const loud = (frames: AudioFrame[]) => frames.filter((f) => f.samples.some((s) => Math.abs(s) > 200)).length;
const frame8k = (value: number): AudioFrame => ({
  samples: new Int16Array(samplesPerFrame(8000)).fill(value),
  sampleRate: 8000,
  at: 0,
});
const frame16k = (value: number): AudioFrame => ({
  samples: new Int16Array(samplesPerFrame(SESSION_RATE)).fill(value),
  sampleRate: SESSION_RATE,
  at: 0,
});

function setup(carrier: Carrier | undefined, callerTransfer?: (to: string) => Promise<void>) {
  const clock: ManualClock = createManualClock();
  const caller = fakeLeg('caller', callerTransfer);
  const call = new AbortController();
  const deps: CallControlDeps = {
    clock,
    carrier,
    provider: 'sip',
    from: '+14155550100',
    workspaceId: 'ws_1',
    callId: 'call_1',
    speech: { tts: createFakeTTS(), stt: createFakeSTT(), vad: createFakeVAD() },
    signal: call.signal,
  };
  const control = legCallControl(deps);
  const agentLeg = control.bind(caller.leg);
  const heardByAgent: AudioFrame[] = [];
  agentLeg.receive({ audio: (frame) => heardByAgent.push(frame), dtmf: () => undefined });
  return { clock, caller, call, control, agentLeg, heardByAgent };
}

const warm = (overrides: Partial<TransferRequest> = {}): TransferRequest => ({
  to: '+14155559000',
  mode: 'warm',
  timeoutMs: 20_000,
  ...overrides,
});

describe('bridged transfers', () => {
  it('holds the caller with music, briefs the target, bridges both ways and ends with either side', async () => {
    const target = fakeLeg('target');
    let answer: (outcome: DialOutcome) => void = () => undefined;
    const { carrier, dials } = fakeCarrier(() => new Promise((resolve) => (answer = resolve)));
    const { clock, caller, agentLeg, heardByAgent, control } = setup(carrier);
    let agentDone: () => void = () => undefined;
    control.exposeSpoken(() => new Promise((resolve) => (agentDone = resolve)));

    const result = control.port.transfer(
      warm({ digits: '12w#', holdMusic: true, briefing: async () => 'Ada wants to move her booking.' }),
    );
    await clock.tick(0);
    // The agent is still saying its line: nothing is dialed yet and its audio still plays.
    expect(dials).toEqual([]);
    agentLeg.play(frame16k(1000));
    expect(caller.played).toHaveLength(1);
    agentDone();
    await clock.tick(0);
    expect(dials).toMatchObject([{ from: '+14155550100', to: '+14155559000', workspaceId: 'ws_1' }]);

    // On hold: music plays, the agent's audio and the caller's words go nowhere.
    await clock.tick(1000);
    expect(loud(caller.played.slice(1))).toBeGreaterThan(10);
    const playedBefore = agentLeg.playedMs;
    agentLeg.play(frame16k(3000));
    expect(caller.played.some((f) => f.samples[0] === 3000)).toBe(false);
    caller.say(frame16k(500));
    expect(heardByAgent).toHaveLength(0);

    answer({ kind: 'answered', leg: target.leg, answeredAt: clock.now() });
    await clock.tick(0);
    await clock.tick(600);
    // The keys, with the half-second pause, then the briefing, while the caller still holds.
    expect(target.keys).toEqual(['12', '#']);
    await clock.tick(100);
    expect(textOf(target.played)).toBe('Ada wants to move her booking.');
    const outcome = await result;
    expect(outcome).toMatchObject({
      ok: true,
      report: { method: 'bridge', dialedAt: expect.any(Number), answeredAt: expect.any(Number) },
    });
    if (!outcome.ok) throw new Error('unreachable');

    // Bridged: the caller's audio reaches the target, the target's (8 kHz) the caller, keys too.
    const toTarget = target.played.length;
    caller.say(frame16k(700));
    expect(target.played.length).toBe(toTarget + 1);
    expect(target.played.at(-1)?.samples[0]).toBe(700);
    const toCaller = caller.played.length;
    for (let i = 0; i < 5; i += 1) target.say(frame8k(4000));
    expect(caller.played.length).toBe(toCaller + 5);
    expect(caller.played.at(-1)).toMatchObject({ sampleRate: SESSION_RATE });
    expect(caller.played.at(-1)?.samples.length).toBe(samplesPerFrame(SESSION_RATE));
    caller.press('5');
    await clock.tick(0);
    expect(target.keys).toEqual(['12', '#', '5']);
    // The agent's played position stood still: hold music and the target are not its speech.
    expect(agentLeg.playedMs).toBe(playedBefore);

    // The agent's hang-up waits for the bridged call; the target hanging up ends both.
    let agentHungUp = false;
    void agentLeg.hangup().then(() => (agentHungUp = true));
    await clock.tick(0);
    expect(agentHungUp).toBe(false);
    expect(caller.hungUp).toBe(false);
    target.end('remote_hangup');
    const report = await outcome.ended;
    expect(report).toMatchObject({
      endedBy: 'target',
      endedAt: expect.any(Number),
      bridgedAt: expect.any(Number),
    });
    await clock.tick(0);
    expect(agentHungUp).toBe(true);
    expect(caller.hungUp).toBe(true);
  });

  it('gives the line back when nobody answers in time: destination_unavailable, the agent talks again', async () => {
    const { carrier, dials } = fakeCarrier(ringForever);
    const { clock, caller, agentLeg, control, heardByAgent } = setup(carrier);
    const result = control.port.transfer(warm({ timeoutMs: 5000, holdMusic: true }));
    await clock.tick(4900);
    expect(dials).toHaveLength(1);
    expect(dials[0]?.signal?.aborted).toBe(false);
    await clock.tick(200);
    expect(await result).toMatchObject({
      ok: false,
      reason: 'destination_unavailable',
      report: { method: 'bridge', detail: 'the target did not answer within 5 s' },
    });
    expect(dials[0]?.signal?.aborted).toBe(true);
    const before = caller.played.length;
    agentLeg.play(frame16k(1234));
    expect(caller.played.length).toBe(before + 1);
    caller.say(frame16k(1));
    expect(heardByAgent).toHaveLength(1);
  });

  it.each([
    [{ kind: 'busy' } as DialOutcome, 'rejected_by_destination', 'the target was busy'],
    [{ kind: 'failed', reason: 'SIP 404 Not Found' } as DialOutcome, 'number_not_found', 'SIP 404 Not Found'],
    [
      { kind: 'failed', reason: 'SIP 484 Address Incomplete' } as DialOutcome,
      'number_incomplete',
      'SIP 484 Address Incomplete',
    ],
    [
      { kind: 'failed', reason: 'SIP 503 Service Unavailable' } as DialOutcome,
      'carrier_unavailable',
      'SIP 503 Service Unavailable',
    ],
  ])('a dial that ends %o fails with %s', async (dialed, reason, detail) => {
    const { carrier } = fakeCarrier(async () => dialed);
    const { control } = setup(carrier);
    expect(await control.port.transfer(warm())).toMatchObject({ ok: false, reason, report: { detail } });
  });

  it('a target that hangs up during its briefing is rejected_by_destination and is hung up', async () => {
    const target = fakeLeg('target');
    const { carrier } = fakeCarrier(async () => ({ kind: 'answered', leg: target.leg, answeredAt: 0 }));
    const { control, clock } = setup(carrier);
    const result = control.port.transfer(
      warm({
        briefing: async () => {
          target.end('remote_hangup');
          return 'Hello?';
        },
      }),
    );
    await clock.tick(0);
    expect(await result).toMatchObject({ ok: false, reason: 'rejected_by_destination' });
  });

  it('a caller who hangs up while the target rings cancels the dial', async () => {
    const { carrier, dials } = fakeCarrier(ringForever);
    const { control, clock, caller } = setup(carrier);
    const result = control.port.transfer(warm());
    await clock.tick(0);
    caller.end('remote_hangup');
    expect(await result).toMatchObject({ ok: false, reason: 'destination_unavailable' });
    expect(dials[0]?.signal?.aborted).toBe(true);
  });
});

describe('cold transfers', () => {
  it('are handed to the carrier (a REFER on SIP) when it takes them', async () => {
    const targets: string[] = [];
    const { carrier, dials } = fakeCarrier(ringForever);
    const { control } = setup(carrier, async (to) => void targets.push(to));
    expect(
      await control.port.transfer({ to: '+14155559000', mode: 'cold', timeoutMs: 10_000 }),
    ).toMatchObject({
      ok: true,
      report: { method: 'refer' },
    });
    expect(targets).toEqual(['+14155559000']);
    expect(dials).toEqual([]);
  });

  it('fall back to a bridge when the carrier refuses to hand the call over', async () => {
    const target = fakeLeg('target');
    const { carrier, dials } = fakeCarrier(async () => ({
      kind: 'answered',
      leg: target.leg,
      answeredAt: 0,
    }));
    const { control, clock } = setup(carrier, async () => {
      throw new TransferRefusedError('the far end refused the transfer (603 Declined)');
    });
    const result = control.port.transfer({
      to: '+14155559000',
      mode: 'cold',
      timeoutMs: 10_000,
      briefing: async () => 'never said on a cold transfer',
    });
    await clock.tick(0);
    const outcome = await result;
    expect(outcome).toMatchObject({ ok: true, report: { method: 'bridge', fellBackFrom: 'refer' } });
    expect(dials).toHaveLength(1);
    expect(textOf(target.played)).toBe('');
  });

  it('a target that refuses the handed-over call is rejected_by_destination, with no bridge', async () => {
    const { carrier, dials } = fakeCarrier(ringForever);
    const { control } = setup(carrier, async () => {
      throw new Error('the transfer target answered 486');
    });
    expect(await control.port.transfer({ to: '+1415', mode: 'cold', timeoutMs: 10_000 })).toMatchObject({
      ok: false,
      reason: 'rejected_by_destination',
      report: { method: 'refer', detail: 'the transfer target answered 486' },
    });
    expect(dials).toEqual([]);
  });

  it('text legs have no audio to bridge: warm transfers are transfer_method_unsupported', async () => {
    const clock = createManualClock();
    const control = legCallControl({
      clock,
      carrier: undefined,
      provider: 'sim',
      from: '+1',
      workspaceId: 'w',
      callId: 'c',
      speech: null,
      signal: new AbortController().signal,
    });
    const leg = fakeLeg('text').leg;
    const textLeg: CallLeg = Object.assign(leg, {
      text: { listen: async () => null, say: async () => undefined, answeredBy: 'human' as const },
    });
    expect(control.bind(textLeg)).toBe(textLeg);
    expect(await control.port.transfer(warm())).toEqual({ ok: false, reason: 'transfer_method_unsupported' });
  });
});
