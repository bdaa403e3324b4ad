import type { Conversation } from '../runtime/index.ts';
import type { Agent, Call, CallPatch, CallSettings, Workspace } from '../store/index.ts';
import type { CallLeg } from '../telephony/index.ts';
import { speechQuality, type CallSpeechPlan, type SpeechReport } from '../speech/index.ts';
import { talk, type TalkResult, type VoiceAgentFields } from '../voice/index.ts';
import type { CallContext } from './context.ts';
import type { LegCallControl } from './call-control.ts';
import { startRecording } from './recording.ts';
import { callTimezone } from './payload.ts';
import { defaultEndReason, movesInto, type CallStatus, type EndCallReason } from './status.ts';

// A connected call to its end: the talk (voice or text turns), then at hang-up the slot goes back
// and the record reads as its final status at once; the after-the-call work (post-call actions,
// the analysis) runs a few calls at a time, and the last move adds the analysis, meters the usage
// and queues the post-call webhook in one transaction (writer.ts).

export interface CallEnd {
  status: CallStatus;
  endCallReason?: EndCallReason;
  customEndCallReason?: string | null;
  errorMessage?: string | null;
  analysis?: unknown;
  quality?: unknown;
  durationSeconds?: number;
  /** When the call hung up (default now). */
  endedAt?: number;
  /** Its slot went back at hang-up (and the dialer was told then). */
  releasedAtHangUp?: boolean;
  /** The statuses it may move from; default those that move into `status`. */
  from?: readonly string[];
  /** The last move of a call that hung up: only while its after-the-call work is pending. */
  afterCall?: boolean;
  /** The call's settings with what the call added (its recording's URL). */
  settings?: CallSettings;
  /** The transcript, when no conversation gives it (a call cut short, read from its kept turns). */
  transcript?: string;
}

/** The agent's settings the call's talk reads, this call's greeting applied. */
function voiceFieldsOf(agent: Agent, conversation: Conversation): VoiceAgentFields {
  const spec = agent.spec;
  return {
    ...spec.agent,
    greeting_message: conversation.config.greeting_message ?? null,
    max_duration: spec.max_duration ?? null,
    voicemail_message: spec.voicemail_message ?? null,
  };
}

function endPatch(ctx: CallContext, end: CallEnd, conversation?: Conversation): CallPatch {
  return {
    status: end.status,
    endCallReason:
      end.endCallReason && end.endCallReason !== 'undefined'
        ? end.endCallReason
        : defaultEndReason(end.status),
    customEndCallReason: end.customEndCallReason ?? null,
    errorMessage: end.errorMessage ?? null,
    holdsSlot: false,
    afterCallPending: false,
    endedAt: end.endedAt ?? ctx.clock.now(),
    durationSeconds: end.durationSeconds ?? 0,
    ...(end.analysis !== undefined ? { analysis: end.analysis } : {}),
    ...(end.quality !== undefined ? { quality: end.quality } : {}),
    ...(end.settings ? { settings: end.settings } : {}),
    ...(end.transcript !== undefined ? { transcript: end.transcript } : {}),
    ...(conversation
      ? {
          state: { ...conversation.session.snapshot(), ...conversation.actions.state() },
          transcript: conversation.session.transcript(),
        }
      : {}),
  };
}

/**
 * The last move, in one transaction with the usage and the webhook (grouped with other calls
 * ending at the same time); the slot is released. A call someone else already finished is left
 * as it is.
 */
export async function finalize(
  ctx: CallContext,
  workspace: Workspace,
  call: Call,
  end: CallEnd,
  conversation?: Conversation,
  agentTimezone?: string,
): Promise<Call | null> {
  const final = await ctx.writer.end({
    workspace,
    callId: call.id,
    from: end.from ?? movesInto(end.status),
    patch: endPatch(ctx, end, conversation),
    ...(agentTimezone ? { agentTimezone } : {}),
    ...(end.afterCall ? { whileAfterCall: true } : {}),
  });
  if (final?.webhookUrl) ctx.webhooks?.wake();
  if (final && !end.releasedAtHangUp) {
    ctx.onSlotReleased?.(final);
    void ctx.admit(workspace.id);
  }
  if (final)
    ctx.logger.info(
      { call_id: final.id, status: final.status, timezone: callTimezone(final, agentTimezone) },
      'call ended',
    );
  return final;
}

/**
 * Keeps the call's completed turns durable as they come (turn-log.ts). A caller's turn is
 * complete when it is added; on audio, an agent's turn once it has played out or been cut (the
 * voice session says when), on text legs when it is added.
 */
function keepTurns(
  ctx: CallContext,
  workspace: Workspace,
  call: Call,
  conversation: Conversation,
  audio: boolean,
): { settled: () => void; close: () => Promise<void> } {
  const log = ctx.turnLog.open(workspace.id, call.id);
  const session = conversation.session;
  const settled = () => log.update(session.turns, session.turns.length);
  const stop = session.onTurn((turn) => {
    if (!audio || turn.speaker === 'user') settled();
  });
  return {
    settled,
    async close() {
      stop();
      await log.close();
    },
  };
}

/**
 * The call's own speech (its agent's voice and recognizer, failover chains) when the server has
 * a speech registry; null: the server's one speech for every call. A registry that cannot answer
 * (its store is down) leaves the call on the server's speech rather than failing it.
 */
async function speechPlanOf(
  ctx: CallContext,
  workspace: Workspace,
  call: Call,
  agent: Agent,
): Promise<CallSpeechPlan | { missing: string } | null> {
  if (!ctx.speechRegistry) return null;
  // Speech is asked for at the line's rate where the carrier's is fixed (8 kHz on telephone legs).
  const sampleRate = ctx.carriers[call.settings.provider ?? 'sim']?.audioRate;
  try {
    return await ctx.speechRegistry.forCall({
      workspaceId: workspace.id,
      agent: agent.spec.agent ?? {},
      ...(sampleRate ? { sampleRate } : {}),
    });
  } catch (err) {
    ctx.logger.warn(
      { err, call_id: call.id },
      "the call's speech could not be chosen: it runs on the default speech",
    );
    return null;
  }
}

/** The talk's result with the speech part of its quality record (voice calls only). */
function withSpeechReport(result: TalkResult, report: SpeechReport, answeredAt: number): TalkResult {
  const quality = result.quality;
  if (quality.mode !== 'voice') return result;
  const { speech, turns } = speechQuality(report, answeredAt, quality.per_turn);
  return { ...result, quality: { ...quality, per_turn: turns, speech } };
}

/** A connected call: the talk, the hang-up, the after-the-call work, the last move. */
export async function talkAndFinish(
  ctx: CallContext,
  workspace: Workspace,
  call: Call,
  agent: Agent,
  conversation: Conversation,
  leg: CallLeg,
  signal: AbortSignal,
  control?: LegCallControl,
): Promise<void> {
  const { clock } = ctx;
  const answeredAt = call.answeredAt ?? clock.now();
  const speech = ctx.speech;
  const recording = await startRecording(ctx, workspace, call, agent, leg);
  const kept = keepTurns(ctx, workspace, call, conversation, !leg.text);
  // A far end that follows the call live (a WS media client) gets each line as it is said.
  const stopTranscript = leg.showTranscript
    ? conversation.session.onTurn((turn) =>
        leg.showTranscript?.({ role: turn.speaker === 'agent' ? 'bot' : 'human', text: turn.text }),
      )
    : undefined;
  const recorded = recording?.leg ?? leg;
  const planned = leg.text ? null : await speechPlanOf(ctx, workspace, call, agent);
  const callSpeech =
    planned && 'speech' in planned ? planned.speech : 'speech' in speech ? speech.speech : null;
  const missing =
    planned && 'missing' in planned ? planned.missing : 'missing' in speech ? speech.missing : undefined;
  const talked = await talk({
    // Transfers share the line with the agent, beneath the recorder: a bridged call is recorded.
    leg: control ? control.bind(recorded) : recorded,
    ...(control ? { exposeSpoken: (spoken: () => Promise<void>) => control.exposeSpoken(spoken) } : {}),
    conversation: conversation.session,
    agent: voiceFieldsOf(agent, conversation),
    speech: callSpeech,
    ...(missing !== undefined ? { speechMissing: missing } : {}),
    clock,
    detectVoicemail: call.type === 'outbound',
    signal,
    logger: ctx.logger.child({ call_id: call.id }),
    onTurnsSettled: kept.settled,
  }).finally(() => {
    stopTranscript?.();
    // The record is about to hold the whole transcript: no write of turns may land after it.
    return kept.close();
  });
  const result =
    planned && 'report' in planned ? withSpeechReport(talked, planned.report(), answeredAt) : talked;
  const endedAt = clock.now();
  const recordingUrl = (await recording?.finish()) ?? null;
  const end: CallEnd = {
    status: result.status,
    endCallReason: result.endCallReason,
    customEndCallReason: result.customEndCallReason,
    errorMessage: result.errorMessage,
    quality: result.quality,
    durationSeconds: Math.max(0, Math.round((endedAt - answeredAt) / 1000)),
    endedAt,
    ...(recordingUrl ? { settings: { ...call.settings, recording_url: recordingUrl } } : {}),
  };
  // The line is free once the call hung up: the slot goes back now and the record reads as its
  // final status (with a hosted model, the work below takes seconds).
  const released = await ctx.releaseSlot({ workspace, callId: call.id, endedAt });
  if (released) ctx.onSlotReleased?.(released);
  await ctx.writer.move({
    workspaceId: workspace.id,
    id: call.id,
    from: movesInto(result.status),
    // Marked until the last move: a node that takes this one over finishes it (liveness.ts).
    patch: { ...endPatch(ctx, end, conversation), afterCallPending: true },
  });
  // The work after the call is not urgent: a few calls at a time, so a burst of hang-ups does
  // not hold up live conversations and the dialer (their next steps wait behind it).
  await ctx.afterCallWork(async () => {
    await ctx.runtime
      .finish(conversation)
      .catch((err: unknown) => ctx.logger.warn({ err, call_id: call.id }, 'after-the-call actions failed'));
    const analysis = await ctx.runtime.analyze(conversation, {
      endCallReason: result.endCallReason,
      customEndCallReason: result.customEndCallReason,
      answeredBy: result.answeredBy,
    });
    await finalize(
      ctx,
      workspace,
      call,
      { ...end, analysis, releasedAtHangUp: released !== null, from: [result.status], afterCall: true },
      conversation,
      agent.spec.agent?.timezone,
    );
  });
}
