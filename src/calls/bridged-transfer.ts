import type { Clock } from '../core/index.ts';
import type {
  TransferFailedReason,
  TransferReport,
  TransferRequest,
  TransferResult,
} from '../runtime/index.ts';
import {
  holdMusic,
  relayTo,
  type CallLeg,
  type Carrier,
  type DialOutcome,
  type LegFloor,
} from '../telephony/index.ts';
import { sayOnLeg, type CallSpeech } from '../voice/index.ts';

// A transfer Parley carries out itself (warm transfers, and cold ones whose carrier refuses to
// hand the call over): the agent says its `initiating_msg` and leaves the line; the caller hears
// hold music (or silence) while the target is dialed through the call's own carrier and number;
// once the target answers it gets the `digits` and hears the briefing; then the two are bridged,
// audio relayed both ways inside Parley (and recorded with the call when it records). A target
// that does not answer in `timeoutMs`, is busy, fails, or hangs up before the caller joins gives
// the line back to the agent, which says its `failed_msg`. The bridged call ends when either
// side hangs up (or the call is ended from the API); the agent's hang-up waits for that.

export interface BridgeDeps {
  clock: Clock;
  /** The carrier the target is dialed through (the call's own); none: cannot dial. */
  carrier: Carrier | undefined;
  /** Our number: the caller id the target sees, and the trunk the carrier uses. */
  from: string;
  workspaceId: string;
  callId: string;
  /** For the briefing; null: the target hears none. */
  speech: CallSpeech | null;
  voice?: string;
  /** Aborted when the call is ended from outside (the API's cancel). */
  signal: AbortSignal;
  /** Resolves once the agent has said what it began (its `initiating_msg`). */
  agentSpoken: () => Promise<void>;
}

/** How long a transfer waits for the agent to finish its line before taking the line anyway. */
const SPOKEN_WAIT_MS = 15_000;
/** Hold music is kept this far ahead of the wire, topped up every HOLD_TOP_UP_MS. */
const HOLD_AHEAD_MS = 200;
const HOLD_TOP_UP_MS = 100;
const FRAME_MS = 20;
/** Pauses inside `digits`, as dialers write them. */
const PAUSE_MS: Record<string, number> = { w: 500, p: 500, ',': 500, W: 1000, P: 1000 };

const noop = () => undefined;
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function bridgeTransfer(
  floor: LegFloor,
  request: TransferRequest,
  deps: BridgeDeps,
  fellBackFrom?: TransferReport['fellBackFrom'],
): Promise<TransferResult> {
  const { clock } = deps;
  const report: TransferReport = { method: 'bridge', ...(fellBackFrom ? { fellBackFrom } : {}) };
  const fail = (reason: TransferFailedReason, detail: string): TransferResult => {
    report.detail = detail;
    return { ok: false, reason, report: { ...report } };
  };
  const carrier = deps.carrier;
  if (!carrier) return fail('carrier_unavailable', "this call's carrier cannot place calls");
  const line = floor.line;
  let lineEnded = false;
  void line.ended.then(() => (lineEnded = true), noop);

  await within(clock, deps.agentSpoken(), SPOKEN_WAIT_MS);
  if (lineEnded) return fail('destination_unavailable', 'the caller hung up before the transfer');
  // The agent leaves the line: what the caller says while on hold goes nowhere.
  floor.take({ audio: noop, dtmf: noop });
  const hold = new AbortController();
  const holding = playHold(line, request.holdMusic === true, clock, hold.signal);
  const release = async () => {
    hold.abort();
    await holding;
    floor.giveBack();
  };

  const dial = new AbortController();
  const stopDialWatch = watch(dial, clock, request.timeoutMs, line, deps.signal);
  report.dialedAt = clock.now();
  let outcome: DialOutcome;
  try {
    outcome = await carrier.dial({
      callId: `${deps.callId}-transfer`,
      from: deps.from,
      to: request.to,
      workspaceId: deps.workspaceId,
      signal: dial.signal,
    });
  } catch (err) {
    outcome = { kind: 'failed', reason: messageOf(err) };
  } finally {
    stopDialWatch();
  }
  if (outcome.kind !== 'answered') {
    await release();
    if (lineEnded) return fail('destination_unavailable', 'the caller hung up while the target rang');
    return failureOf(outcome, request.timeoutMs, fail);
  }
  const target = outcome.leg;
  report.answeredAt = outcome.answeredAt;
  let targetEnded = false;
  void target.ended.then(
    () => (targetEnded = true),
    () => (targetEnded = true),
  );

  const briefed = await brief(target, request, deps).then(
    () => null,
    (err: unknown) => messageOf(err),
  );
  if (briefed !== null || lineEnded || targetEnded) {
    await Promise.all([target.hangup().catch(noop), release()]);
    if (lineEnded) return fail('destination_unavailable', 'the caller hung up before the target joined');
    return fail('rejected_by_destination', briefed ?? 'the target hung up before the caller joined');
  }

  hold.abort();
  await holding;
  target.receive(relayTo(line));
  floor.take(relayTo(target));
  report.bridgedAt = clock.now();
  const ended = bridgeEnd(line, target, deps.signal).then(async (endedBy) => {
    report.endedAt = clock.now();
    report.endedBy = endedBy;
    await Promise.all([line.hangup().catch(noop), target.hangup().catch(noop)]);
    return { ...report };
  });
  floor.keepOpen(ended);
  return { ok: true, humanConnectedAt: outcome.answeredAt, report: { ...report }, ended };
}

/** The spec's failure cause for a dial that did not answer. */
function failureOf(
  outcome: Exclude<DialOutcome, { kind: 'answered' }>,
  timeoutMs: number,
  fail: (reason: TransferFailedReason, detail: string) => TransferResult,
): TransferResult {
  if (outcome.kind === 'busy') return fail('rejected_by_destination', 'the target was busy');
  if (outcome.kind === 'no-answer') return fail('destination_unavailable', 'the target did not answer');
  if (outcome.reason === 'canceled')
    return fail('destination_unavailable', `the target did not answer within ${timeoutMs / 1000} s`);
  const status = /\bSIP (\d{3})\b/.exec(outcome.reason)?.[1];
  const reason: TransferFailedReason =
    status === '404' || status === '410' || status === '604'
      ? 'number_not_found'
      : status === '484'
        ? 'number_incomplete'
        : status === '482' || status === '483'
          ? 'routing_loop'
          : status === '488' || status === '606'
            ? 'media_negotiation_failed'
            : status === '403' || status === '603'
              ? 'rejected_by_destination'
              : 'carrier_unavailable';
  return fail(reason, outcome.reason);
}

/** Aborts `dial` after `timeoutMs`, or when the caller hangs up, or when the call is ended. */
function watch(
  dial: AbortController,
  clock: Clock,
  timeoutMs: number,
  line: CallLeg,
  signal: AbortSignal,
): () => void {
  const stop = new AbortController();
  const abort = () => dial.abort();
  clock.sleep(timeoutMs, stop.signal).then(abort, noop);
  void line.ended.then(abort, abort);
  signal.addEventListener('abort', abort, { once: true, signal: stop.signal });
  if (signal.aborted) abort();
  return () => stop.abort();
}

/** The target hears the keys, then the briefing, while the caller holds. */
async function brief(target: CallLeg, request: TransferRequest, deps: BridgeDeps): Promise<void> {
  if (request.digits) await sendDigits(target, request.digits, deps.clock);
  const text = request.briefing ? (await request.briefing()).trim() : '';
  if (!text || !deps.speech) return;
  await sayOnLeg({
    tts: deps.speech.tts,
    ...(deps.voice ? { voice: deps.voice } : {}),
    leg: target,
    text,
  });
}

/** Keys in groups; `w`, `p` and `,` pause half a second, `W` and `P` a second. */
export async function sendDigits(leg: CallLeg, digits: string, clock: Clock): Promise<void> {
  let group = '';
  for (const char of digits) {
    const pause = PAUSE_MS[char];
    if (pause === undefined) {
      group += char;
      continue;
    }
    if (group) await leg.sendDtmf(group);
    group = '';
    await clock.sleep(pause);
  }
  if (group) await leg.sendDtmf(group);
}

/** Plays the hold loop until `signal` aborts (silence without music: the leg sends its own). */
async function playHold(line: CallLeg, music: boolean, clock: Clock, signal: AbortSignal): Promise<void> {
  if (!music) return;
  const source = holdMusic();
  const burst = HOLD_AHEAD_MS / FRAME_MS;
  let ended = false;
  void line.ended.then(() => (ended = true), noop);
  while (!signal.aborted && !ended) {
    for (let i = 0; i < burst && line.queuedMs < HOLD_AHEAD_MS; i += 1) line.play(source.next());
    await clock.sleep(HOLD_TOP_UP_MS, signal).catch(noop);
  }
  if (!ended) line.clear(0);
}

/** Who ended the bridged call first. */
function bridgeEnd(
  line: CallLeg,
  target: CallLeg,
  signal: AbortSignal,
): Promise<NonNullable<TransferReport['endedBy']>> {
  const aborted = new Promise<'call_ended'>((resolve) => {
    if (signal.aborted) resolve('call_ended');
    signal.addEventListener('abort', () => resolve('call_ended'), { once: true });
  });
  return Promise.race([
    line.ended.then(
      () => 'caller' as const,
      () => 'caller' as const,
    ),
    target.ended.then(
      () => 'target' as const,
      () => 'target' as const,
    ),
    aborted,
  ]);
}

/** Waits for `promise`, at most `ms`. */
async function within(clock: Clock, promise: Promise<void>, ms: number): Promise<void> {
  const stop = new AbortController();
  await Promise.race([promise.catch(noop), clock.sleep(ms, stop.signal).catch(noop)]);
  stop.abort();
}
