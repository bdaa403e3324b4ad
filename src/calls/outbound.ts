import type { AgentRun, Conversation } from '../runtime/index.ts';
import type { Call, Workspace } from '../store/index.ts';
import type { DialOutcome } from '../telephony/index.ts';
import { finalize, talkAndFinish } from './after-call.ts';
import { callControlOf } from './call-control.ts';
import type { CallContext } from './context.ts';
import { movesInto, type CallStatus } from './status.ts';

// An admitted outbound call: open the agent's conversation (pre-call actions run now), dial
// through the number's carrier, and talk once answered.

/**
 * A call's agent as its version has it (null: deleted), with that version's actions and knowledge
 * base, read once per admission.
 */
export type Prepared = AgentRun;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function runOutbound(
  ctx: CallContext,
  workspace: Workspace,
  call: Call,
  { agent, attachedActions, knowledgeBase }: Prepared,
  signal: AbortSignal,
): Promise<void> {
  const fail = (errorMessage: string, conversation?: Conversation) =>
    finalize(
      ctx,
      workspace,
      call,
      { status: 'failed', endCallReason: 'undefined', errorMessage },
      conversation,
    );
  if (!agent) {
    await fail('the agent was deleted before the call started');
    return;
  }
  const provider = call.settings.provider ?? 'sim';
  const carrier = ctx.carriers[provider];
  if (!carrier) {
    await fail(`the caller id's provider "${provider}" has no carrier on this server`);
    return;
  }
  const control = callControlOf(ctx, workspace, call, agent, provider, call.phoneFrom, signal);
  let conversation: Conversation;
  try {
    conversation = await ctx.runtime.open({
      callControl: control.port,
      conversationId: call.id,
      agent,
      workspace,
      variables: call.variables,
      style: 'voice',
      party: { ourNumber: call.phoneFrom, leadNumber: call.phoneTo },
      attachedActions,
      knowledgeBase,
      overrides: {
        ...(call.settings.prompt !== undefined ? { prompt: call.settings.prompt } : {}),
        ...(call.settings.greeting !== undefined ? { greeting_message: call.settings.greeting } : {}),
      },
    });
  } catch (err) {
    await fail(`the conversation could not start: ${messageOf(err)}`);
    return;
  }

  let outcome: DialOutcome;
  try {
    outcome = await carrier.dial({
      callId: call.id,
      from: call.phoneFrom,
      to: call.phoneTo,
      workspaceId: workspace.id,
      signal,
      // A carrier's own machine detection (Twilio's, billed per call) when the agent leaves messages.
      machineDetection: agent.spec.voicemail_message?.enabled === true,
    });
  } catch (err) {
    outcome = { kind: 'failed', reason: messageOf(err) };
  }
  if (outcome.kind !== 'answered') {
    const status: CallStatus =
      outcome.kind === 'failed' && outcome.reason === 'canceled' ? 'canceled' : outcome.kind;
    await finalize(
      ctx,
      workspace,
      call,
      {
        status,
        endCallReason: 'undefined',
        errorMessage:
          outcome.kind === 'failed' ? `the carrier could not place the call: ${outcome.reason}` : null,
      },
      conversation,
    );
    return;
  }

  const answered = await ctx.writer.move({
    workspaceId: workspace.id,
    id: call.id,
    from: movesInto('in-progress'),
    patch: { status: 'in-progress', answeredAt: outcome.answeredAt, callSid: outcome.leg.sid },
  });
  if (!answered) {
    await outcome.leg.hangup();
    return; // moved elsewhere (canceled); nothing more to do here
  }
  ctx.talking(call.id);
  await talkAndFinish(ctx, workspace, answered, agent, conversation, outcome.leg, signal, control);
}
