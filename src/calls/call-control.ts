import type { Clock } from '../core/index.ts';
import type { CallControlPort, TransferReport, TransferResult } from '../runtime/index.ts';
import type { Agent, Call, Workspace } from '../store/index.ts';
import { TransferRefusedError, createLegFloor, type CallLeg, type LegFloor } from '../telephony/index.ts';
import { callVoice } from '../voice/index.ts';
import type { CallContext } from './context.ts';
import { bridgeTransfer, type BridgeDeps } from './bridged-transfer.ts';

// A call's LIVE_TRANSFER port over its carrier leg. The conversation opens before the call is
// answered, so the leg is bound once there is one; the agent then talks on a floor (a leg it
// shares with transfers). A cold transfer hands the call to the carrier (SIP REFER, Twilio's
// <Dial>, the sim's own) and succeeds once the carrier says the target took it; a carrier that
// refuses to hand it over (a trunk that declines REFER) gets a bridged transfer instead. A warm
// transfer is always bridged (bridged-transfer.ts). Text legs carry no audio to bridge: there a
// warm transfer fails with `transfer_method_unsupported`.

export interface CallControlDeps extends Omit<BridgeDeps, 'agentSpoken'> {
  /** The call's provider: a SIP leg's hand-over is a REFER. */
  provider: string;
}

export interface LegCallControl {
  port: CallControlPort;
  /** Binds the connected leg; returns the leg the agent talks on. */
  bind(leg: CallLeg): CallLeg;
  /** Given by the voice session: resolves once the agent has said what it began. */
  exposeSpoken(spoken: () => Promise<void>): void;
}

export function legCallControl(deps: CallControlDeps): LegCallControl {
  const { clock } = deps;
  let leg: CallLeg | null = null;
  let floor: LegFloor | null = null;
  let spoken: () => Promise<void> = () => Promise.resolve();
  const bridgeDeps: BridgeDeps = { ...deps, agentSpoken: () => spoken() };
  const handOver: TransferReport['method'] = deps.provider === 'sip' ? 'refer' : 'carrier';

  return {
    bind(next) {
      leg = next;
      if (next.text) return next;
      floor = createLegFloor(next);
      const agentLeg: CallLeg = floor.agent;
      if (next.showTranscript) agentLeg.showTranscript = next.showTranscript.bind(next);
      return agentLeg;
    },
    exposeSpoken(fn) {
      spoken = fn;
    },
    port: {
      async transfer(request): Promise<TransferResult> {
        if (!leg) return { ok: false, reason: 'carrier_unavailable' };
        if (request.mode === 'warm') {
          if (!floor) return { ok: false, reason: 'transfer_method_unsupported' };
          return bridgeTransfer(floor, request, bridgeDeps);
        }
        const cold = await handOff(leg, request.to, request.timeoutMs, clock, handOver);
        if (cold !== 'refused') return cold;
        if (!floor) return { ok: false, reason: 'transfer_blocked_by_carrier', report: { method: handOver } };
        return bridgeTransfer(floor, { ...request, briefing: undefined }, bridgeDeps, handOver);
      },
    },
  };
}

/** A cold hand-over by the carrier; 'refused' when the carrier will not hand calls over at all. */
async function handOff(
  leg: CallLeg,
  to: string,
  timeoutMs: number,
  clock: Clock,
  method: TransferReport['method'],
): Promise<TransferResult | 'refused'> {
  const startedAt = clock.now();
  const stop = new AbortController();
  const timedOut = clock.sleep(timeoutMs, stop.signal).then(
    (): TransferResult => ({
      ok: false,
      reason: 'destination_unavailable',
      report: {
        method,
        dialedAt: startedAt,
        detail: `the target did not answer within ${timeoutMs / 1000} s`,
      },
    }),
    () => null,
  );
  try {
    const done = leg.transfer(to).then(
      (): TransferResult => {
        const at = clock.now();
        return { ok: true, humanConnectedAt: at, report: { method, dialedAt: startedAt, answeredAt: at } };
      },
      (err: unknown): TransferResult | 'refused' =>
        err instanceof TransferRefusedError
          ? 'refused'
          : {
              ok: false,
              reason: 'rejected_by_destination',
              report: {
                method,
                dialedAt: startedAt,
                detail: err instanceof Error ? err.message : String(err),
              },
            },
    );
    return (await Promise.race([done, timedOut])) ?? (await done);
  } finally {
    stop.abort();
  }
}

/** A call's control, dialing transfer targets through its own carrier and number. */
export function callControlOf(
  ctx: CallContext,
  workspace: Workspace,
  call: Call,
  agent: Agent,
  provider: string,
  ourNumber: string,
  signal: AbortSignal,
): LegCallControl {
  const speech = 'speech' in ctx.speech ? ctx.speech.speech : null;
  const voice = speech ? callVoice(speech, agent.spec.agent?.voice_id) : undefined;
  return legCallControl({
    clock: ctx.clock,
    carrier: ctx.carriers[provider],
    provider,
    from: ourNumber,
    workspaceId: workspace.id,
    callId: call.id,
    speech,
    ...(voice ? { voice } : {}),
    signal,
  });
}
