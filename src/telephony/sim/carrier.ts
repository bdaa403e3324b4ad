import { newId, normalizeE164, ParleyError, systemClock, unavailable, type Clock } from '../../core/index.ts';
import type {
  Carrier,
  DialOutcome,
  DialRequest,
  IncomingHandler,
  IncomingRejection,
  IncomingTaken,
  LegEndReason,
} from '../types.ts';
import { createSimAudioLeg, type SimAudioLeg } from './audio-leg.ts';
import { runMachineAudio, runPersonAudio } from './far-end-audio.ts';
import { runMachine, runPerson, voicemailGreeting } from './far-end.ts';
import { createSimLeg, type SimLeg } from './text-leg.ts';
import { createCallerPacer, createFrameTicker, type FramePacer } from '../pacing/index.ts';
import { NO_ANSWER_MS, RING_MS, createSimTimer, type SimTimer } from './timing.ts';
import type { Callee, CalleeFactory, FarEndVoice } from './types.ts';

// The simulated carrier `sim` (DESIGN.md section 4): a real carrier that rings, answers and
// talks, so the embedded default and load tests run whole calls. The dialed number's last four
// digits choose the outcome, like a telephony provider's test numbers (see OUTCOME_BY_SUFFIX).

export interface SimCarrierOptions {
  /** Builds the person who answers an outbound call. */
  callee: CalleeFactory;
  /** Builds the person who places an inbound call (`ring`); defaults to `callee`. */
  caller?: CalleeFactory;
  clock?: Clock;
  /** Multiplies every wait: 1 = real time, 0.1 = ten times faster, 0 = no waiting (default 1). */
  speed?: number;
  /** Makes leg sids (default `sim_<uuid>`). */
  ids?: () => string;
  /**
   * The far end's voice: with one, legs carry audio in real time (the far end's words are
   * synthesized, ours recognized); without, legs carry text turns (the fast path for load tests).
   */
  voice?: FarEndVoice;
  /**
   * Who sends our audio on the beat (src/telephony/pacing): by default the carrier's own beat,
   * on its clock; a worker pacer keeps the beat off the main thread.
   */
  pacer?: FramePacer;
}

/** A sim leg in either mode, with what the sim records. */
export type AnySimLeg = SimLeg | SimAudioLeg;

export type SimDialOutcome =
  { kind: 'answered'; leg: AnySimLeg; answeredAt: number } | Exclude<DialOutcome, { kind: 'answered' }>;

/** A call the simulated person places to us (used by `POST /v2/sim/inbound`). */
export interface SimInboundRequest {
  /** E.164 number of the simulated caller. */
  from: string;
  /** E.164 number of ours that it calls. */
  to: string;
  /** The workspace whose number it is (the API request's). */
  workspaceId?: string;
}

export interface SimCarrier extends Carrier {
  readonly name: 'sim';
  readonly speed: number;
  /** `audio` when the far end has a voice, else `text`. */
  readonly mode: 'audio' | 'text';
  dial(request: DialRequest): Promise<SimDialOutcome>;
  onIncoming(handler: IncomingHandler): void;
  /**
   * A simulated person calls one of our numbers: the call is pushed to the incoming handler, and
   * once answered the person's `opening()` is its first line. Throws on invalid numbers, and when
   * nothing takes calls.
   */
  ring(request: SimInboundRequest): Promise<IncomingTaken>;
  /** Why the last calls were turned away, newest last (the far end's view, for tests). */
  readonly rejections: readonly IncomingRejection[];
}

/** The documented test numbers: what a number ending in these four digits does. */
export const OUTCOME_BY_SUFFIX = {
  '0000': 'no-answer',
  '1111': 'busy',
  '2222': 'failed',
  '3333': 'machine',
  '4444': 'hangs-up',
} as const;

const isE164 = (number: string) => normalizeE164(number) === number;

export function createSimCarrier(options: SimCarrierOptions): SimCarrier {
  const clock = options.clock ?? systemClock;
  const timer = createSimTimer(clock, options.speed ?? 1);
  const makeId = options.ids ?? (() => `sim_${newId()}`);
  const now = () => clock.now();
  const ticker = createFrameTicker(clock);
  const pacer = options.pacer ?? createCallerPacer();
  let incoming: IncomingHandler | null = null;
  const rejections: IncomingRejection[] = [];

  return {
    name: 'sim',
    audioRate: 16000,
    speed: timer.speed,
    mode: options.voice ? 'audio' : 'text',

    async dial(request) {
      const { signal } = request;
      if (!isE164(request.to) || !isE164(request.from)) return { kind: 'failed', reason: 'invalid_number' };
      if (signal?.aborted) return { kind: 'failed', reason: 'canceled' };
      request.onRinging?.();
      const behaviour = OUTCOME_BY_SUFFIX[request.to.slice(-4) as keyof typeof OUTCOME_BY_SUFFIX];
      try {
        await timer.wait(RING_MS, signal);
        if (behaviour === 'no-answer') await timer.wait(NO_ANSWER_MS - RING_MS, signal);
      } catch (err) {
        if (signal?.aborted) return { kind: 'failed', reason: 'canceled' };
        throw err;
      }
      // At speed 0 nothing above yields, so an abort during the "ringing" is seen here.
      if (signal?.aborted) return { kind: 'failed', reason: 'canceled' };
      if (behaviour === 'no-answer') return { kind: 'no-answer' };
      if (behaviour === 'busy') return { kind: 'busy' };
      if (behaviour === 'failed') return { kind: 'failed', reason: 'carrier_failure' };

      const context = { callId: request.callId, to: request.to, from: request.from };
      if (behaviour === 'hangs-up') {
        const { leg, end } = connect(null, timer);
        end('remote_hangup');
        return { kind: 'answered', leg, answeredAt: now() };
      }
      const callee = await options.callee(context);
      const { leg } = connect(behaviour === 'machine' ? { machine: callee.name } : { person: callee }, timer);
      return { kind: 'answered', leg, answeredAt: now() };
    },

    rejections,

    onIncoming(handler) {
      incoming = handler;
    },

    async ring(request) {
      for (const [field, number] of [
        ['from', request.from],
        ['to', request.to],
      ] as const) {
        if (!isE164(number)) {
          throw new ParleyError(`${field} is not an E.164 phone number`, {
            code: 'invalid_number',
            status: 400,
            category: 'validation',
          });
        }
      }
      if (!incoming) {
        throw unavailable('this server takes no inbound calls');
      }
      const factory = options.caller ?? options.callee;
      return incoming({
        from: request.from,
        to: request.to,
        ...(request.workspaceId ? { workspaceId: request.workspaceId } : {}),
        async answer(callId) {
          const person = await factory({ callId, to: request.to, from: request.from });
          return connect({ person }, timer).leg;
        },
        reject(reason) {
          rejections.push(reason);
          if (rejections.length > 100) rejections.shift();
        },
      });
    },
  };

  /** A connected leg in the carrier's mode, with its far end running (none for `null`). */
  function connect(
    far: { person: Callee } | { machine: string | undefined } | null,
    timer: SimTimer,
  ): { leg: AnySimLeg; end: (reason: LegEndReason) => void } {
    const voice = options.voice;
    if (voice) {
      const { leg, remote } = createSimAudioLeg(makeId(), ticker, pacer, now);
      if (far && 'person' in far) runPersonAudio(remote, far.person, voice, timer);
      else if (far) runMachineAudio(remote, voicemailGreeting(far.machine), voice, timer);
      return { leg, end: remote.end };
    }
    const { leg, remote } = createSimLeg(makeId(), now, far && 'machine' in far ? 'machine' : 'human');
    if (far && 'person' in far) runPerson(remote, far.person, timer);
    else if (far) runMachine(remote, `${voicemailGreeting(far.machine)} [beep]`, timer);
    return { leg, end: remote.end };
  }
}
