import { prepareRun, type AgentRun, type Conversation } from '../runtime/index.ts';
import type { Agent, Call, Workspace } from '../store/index.ts';
import type { CallLeg, IncomingCall, IncomingTaken } from '../telephony/index.ts';
import { unavailable } from '../core/index.ts';
import { routeInboundCall } from '../webhooks/index.ts';
import type { HttpPort } from '../core/index.ts';
import { finalize, talkAndFinish } from './after-call.ts';
import { callControlOf } from './call-control.ts';
import type { CallContext } from './context.ts';
import { movesInto, type CallStatus } from './status.ts';

// A call a carrier pushes for one of the workspace's numbers: stored `registered` (`busy`, and
// turned away, when the workspace is at its limit), routed in the background (the inbound webhook,
// rules 1-4), then answered by the chosen agent on the leg the carrier connects.

export interface InboundOptions {
  /** Inbound webhooks: outbound HTTP (the safe fetch) and the per-attempt timeout. */
  webhook?: { http: HttpPort; timeoutMs?: number };
}

export async function receiveInbound(
  ctx: CallContext,
  options: InboundOptions,
  provider: string,
  incoming: IncomingCall,
): Promise<IncomingTaken> {
  const { store } = ctx;
  const workspace = incoming.workspaceId ? await store.workspaces.get(incoming.workspaceId) : null;
  if (!workspace) {
    // Carriers that know only the number (SIP, telephony webhooks) come with their own lookup.
    incoming.reject('unavailable');
    throw unavailable(`no workspace takes calls to ${provider} numbers without saying which`);
  }
  const input = { from: incoming.from, to: incoming.to };
  const number = await store.phoneNumbers.getBySlug(workspace.id, input.to.slice(1));
  const agentIds = number
    ? ((await store.phoneNumbers.agentsOf(workspace.id, [number.id])).get(number.id) ?? [])
    : [];
  const defaultAgentId = number?.defaultAgentId ?? workspace.defaultAgentId ?? null;
  const agentId = agentIds[0] ?? defaultAgentId;
  const call = await store.calls.create(workspace.id, {
    agentId: agentId ?? '',
    type: 'inbound',
    status: 'registered',
    phoneFrom: input.from,
    phoneTo: input.to,
    leadName: '',
    settings: { provider, default_agent: defaultAgentId },
    node: ctx.node,
  });
  if (!(await store.calls.takeSlot(workspace.id, call.id, Math.max(1, workspace.maxConcurrentCalls)))) {
    incoming.reject('busy');
    const busy = await finalize(ctx, workspace, call, {
      status: 'busy',
      errorMessage: 'the workspace was at its max_concurrent_calls',
    });
    return { callId: call.id, status: busy?.status ?? call.status };
  }
  ctx.track(workspace, call.id, (signal) => answerInbound(ctx, options, workspace, call, incoming, signal));
  return { callId: call.id, status: call.status };
}

type Routing =
  | { agent: Agent; variables: Record<string, string | number | boolean>; metadata: Record<string, unknown> }
  | { fail: CallStatus; errorMessage: string };

/** The inbound webhook's decision (rules 1-4); without a webhook, the number's agent. */
async function route(
  ctx: CallContext,
  options: InboundOptions,
  workspace: Workspace,
  call: Call,
  signal: AbortSignal,
): Promise<Routing> {
  const { store } = ctx;
  const agent = call.agentId ? await store.agents.get(workspace.id, call.agentId) : null;
  const defaultAgentId = call.settings.default_agent ?? null;
  const fallback = async (why: string): Promise<Routing> => {
    const chosen = defaultAgentId ? await store.agents.get(workspace.id, defaultAgentId) : null;
    return chosen ? { agent: chosen, variables: {}, metadata: {} } : { fail: 'canceled', errorMessage: why };
  };
  const hookUrl = agent?.spec.inbound_call_webhook_url;
  if (!agent || !hookUrl || !options.webhook) {
    return agent
      ? { agent, variables: {}, metadata: {} }
      : { fail: 'failed', errorMessage: 'no agent answers this number (attach one, or set a default agent)' };
  }
  const decision = await routeInboundCall(
    {
      url: hookUrl,
      secret: workspace.webhookSecret,
      ...(workspace.previousWebhookSecret ? { previousSecret: workspace.previousWebhookSecret } : {}),
      callId: call.id,
      fromNumber: call.phoneFrom,
      toNumber: call.phoneTo,
      modelId: agent.id,
    },
    {
      http: options.webhook.http,
      clock: ctx.clock,
      ...(options.webhook.timeoutMs ? { timeoutMs: options.webhook.timeoutMs } : {}),
      signal,
      onHold: () => {
        void store.calls.update(workspace.id, call.id, ['registered'], { status: 'paused' });
      },
      onAttempt: (log) => {
        void store.webhooks
          .appendLog({
            workspaceId: workspace.id,
            webhookType: 'inbound_webhook',
            status: log.status,
            callId: call.id,
            assistantId: call.agentId || null,
            url: log.url,
            requestHeaders: log.request_headers,
            requestBody: log.request_body,
            responseStatusCode: log.response_status_code,
            responseHeaders: log.response_headers,
            responseBody: log.response_body,
            attemptNumber: log.attempt_number,
            durationMs: log.duration_ms,
            error: log.error,
          })
          .catch((err: unknown) =>
            ctx.logger.warn({ err, call_id: call.id }, 'an inbound webhook log was not stored'),
          );
      },
    },
  );
  if (decision.action === 'disconnect')
    return { fail: 'canceled', errorMessage: 'disconnected: the inbound webhook answered without an agent' };
  if (decision.action === 'fallback')
    return fallback('disconnected: the inbound webhook failed and no default agent is set');
  const routed = { variables: decision.customVariables, metadata: decision.metadata };
  if (!decision.modelId) return { agent, ...routed };
  const rerouted = await store.agents.get(workspace.id, decision.modelId);
  if (rerouted) return { agent: rerouted, ...routed };
  const chosen = await fallback(
    `disconnected: override_model_id ${decision.modelId} is not an agent of this workspace`,
  );
  return 'agent' in chosen ? { ...chosen, ...routed } : chosen;
}

async function answerInbound(
  ctx: CallContext,
  options: InboundOptions,
  workspace: Workspace,
  call: Call,
  incoming: IncomingCall,
  signal: AbortSignal,
): Promise<void> {
  const routing = await route(ctx, options, workspace, call, signal);
  if ('fail' in routing) {
    incoming.reject('unavailable');
    await finalize(ctx, workspace, call, { status: routing.fail, errorMessage: routing.errorMessage });
    return;
  }
  const run = await liveRunOf(ctx, routing.agent);
  const agent = run.agent ?? routing.agent;
  const routedFrom = call.agentId && call.agentId !== agent.id ? call.agentId : null;
  const answered = await ctx.store.calls.update(workspace.id, call.id, movesInto('in-progress'), {
    status: 'in-progress',
    agentId: agent.id,
    agentVersionId: run.versionId,
    variables: { ...call.variables, ...routing.variables },
    metadata: { ...call.metadata, ...routing.metadata },
    ...(routedFrom ? { settings: { ...call.settings, routed_from: routedFrom } } : {}),
    answeredAt: ctx.clock.now(),
  });
  if (!answered) {
    incoming.reject('unavailable');
    return;
  }
  ctx.talking(call.id);
  const provider = call.settings.provider ?? 'sim';
  const control = callControlOf(ctx, workspace, call, agent, provider, call.phoneTo, signal);
  let conversation: Conversation;
  try {
    conversation = await ctx.runtime.open({
      callControl: control.port,
      conversationId: call.id,
      agent,
      workspace,
      variables: answered.variables,
      style: 'voice',
      party: { ourNumber: call.phoneTo, leadNumber: call.phoneFrom },
      attachedActions: run.attachedActions,
      knowledgeBase: run.knowledgeBase,
    });
  } catch (err) {
    incoming.reject('failed');
    await finalize(ctx, workspace, answered, {
      status: 'failed',
      errorMessage: `the conversation could not start: ${err instanceof Error ? err.message : String(err)}`,
    });
    return;
  }
  let leg: CallLeg;
  try {
    leg = await incoming.answer(call.id);
  } catch (err) {
    // The caller hung up while the call was routed (a SIP CANCEL): nobody is left to talk to.
    await finalize(
      ctx,
      workspace,
      answered,
      { status: 'user-canceled', errorMessage: err instanceof Error ? err.message : String(err) },
      conversation,
    );
    return;
  }
  await ctx.store.calls.update(workspace.id, call.id, ['in-progress'], { callSid: leg.sid });
  await talkAndFinish(
    ctx,
    workspace,
    { ...answered, callSid: leg.sid },
    agent,
    conversation,
    leg,
    signal,
    control,
  );
}

/** The chosen agent's live version (the draft while it was never published), read at answer. */
async function liveRunOf(ctx: CallContext, agent: Agent): Promise<AgentRun> {
  const run = await prepareRun(ctx.store, agent, agent.liveVersionId);
  // A live pointer to a version that cannot be read runs the draft rather than failing the call.
  return run.agent ? run : prepareRun(ctx.store, agent, null);
}
