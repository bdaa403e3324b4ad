import { coalescePerKey, systemClock, type Clock, type HttpPort, type Logger } from '../core/index.ts';
import pLimit from 'p-limit';
import { analyzeConversation } from '../conversation/index.ts';
import {
  knowledgeBasesOf,
  type AgentRuntime,
  type AttachedKnowledgeBase,
  type Conversation,
} from '../runtime/index.ts';
import { routeInboundCall } from '../webhooks/index.ts';
import type { Action, Agent, Call, CallPatch, NewCall, Store, Workspace } from '../store/index.ts';
import type { CallLeg, Carrier, DialOutcome } from '../telephony/index.ts';
import { converse, type ConverseResult } from './converse.ts';
import { createSlotReleaser } from './releases.ts';
import { createCallWriter } from './writer.ts';
import { callTimezone } from './payload.ts';
import { callQuality } from './quality.ts';
import { defaultEndReason, movesInto, type CallStatus, type EndCallReason } from './status.ts';

// The call lifecycle (DESIGN.md section 4). A call is stored `pending`; `admit` gives waiting
// calls the workspace's free slots in order (counted in the store, so every process shares them)
// and runs them (the dialer creates its calls already admitted and hands them to `run`): open the
// agent's conversation (pre-call actions run now), dial through the number's carrier, talk; at
// hang-up the slot goes back; then the after-the-end work and the analysis (a few calls at a
// time), and the last move in one transaction: the final status, the usage metered and the
// post-call webhook queued (the outbox), grouped with other calls' moves (`writer.ts`). A slot
// freed admits the next waiting call at once; a poll catches calls placed by other processes.

export interface PlaceCallInput {
  agent: Agent;
  /** Caller id (E.164) and the provider of that number (which carrier dials). */
  from: string;
  provider: string;
  to: string;
  leadName: string;
  leadEmail?: string | null;
  leadTimezone?: string | null;
  variables: Record<string, string | number | boolean>;
  metadata?: Record<string, unknown>;
  /** This call's prompt and greeting instead of the agent's. */
  prompt?: string;
  greeting?: string;
  /** The post-call webhook receiver; default the agent's `external_webhook_url`. */
  webhookUrl?: string | null;
  batchCallId?: string | null;
  batchTaskId?: string | null;
}

export interface CallServiceOptions {
  store: Store;
  runtime: AgentRuntime;
  /** Carriers by provider name; numbers of other providers fail to dial with a clear message. */
  carriers: Record<string, Carrier>;
  clock?: Clock;
  logger: Logger;
  /** This process (`PARLEY_NODE_NAME`): the owner of the calls it runs. */
  node: string;
  /** Inbound webhooks: outbound HTTP (the safe fetch) and the per-attempt timeout. */
  inboundWebhook?: { http: HttpPort; timeoutMs?: number };
  /** Woken after a commit that queued a webhook. */
  webhooks?: { wake(): void };
  /** How often to look for calls waiting that no event announced (other processes); default 1 s. */
  pollIntervalMs?: number;
  /** Calls whose after-the-call work (final pass, analysis, last move) runs at once (default 8). */
  afterCallConcurrency?: number;
  /** How often this node records that it is alive (default 5 s). */
  heartbeatMs?: number;
  /** A node silent this long is taken over by the others (default 30 s). */
  deadAfterMs?: number;
  /**
   * Told when a call's slot was released (the dialer refills it at once): at hang-up for a call
   * that was answered (its after-the-call work and analysis do not hold a line), otherwise with
   * its last move.
   */
  onSlotReleased?: (call: Call) => void;
  /**
   * false on API-only nodes (`--role api`): calls are stored and left for the workers, which
   * admit and run them. Default true.
   */
  runsCalls?: boolean;
}

export interface CallService {
  place(workspace: Workspace, input: PlaceCallInput): Promise<{ call: Call; eta: number }>;
  /**
   * A call arriving for one of the workspace's numbers on the sim carrier: stored `registered`
   * (`busy` when the workspace is at its limit) and routed in the background (inbound webhook,
   * rules 1-4), then answered by the chosen agent.
   */
  receive(workspace: Workspace, input: { from: string; to: string }): Promise<Call>;
  /** Gives free slots of the workspace to its waiting calls and runs them. */
  admit(workspaceId: string): Promise<void>;
  /**
   * Runs calls that were admitted to this node when they were created (the dialer creates a
   * claim's calls and takes their slots in one transaction).
   */
  run(workspace: Workspace, admitted: readonly Call[]): Promise<void>;
  /** Starts the poll for waiting calls and recovers this node's interrupted calls. */
  start(signal?: AbortSignal): Promise<void>;
  /** Stops admitting; calls in progress get `graceMs` to finish, then are hung up. */
  stop(graceMs?: number): Promise<void>;
  /** Resolves when no call runs in this process (tests). */
  idle(): Promise<void>;
  readonly running: number;
}

/** A call's agent (null: deleted), its attached actions and knowledge base, read once per admission. */
interface Prepared {
  agent: Agent | null;
  attachedActions: readonly Action[];
  knowledgeBase: AttachedKnowledgeBase | null;
}

/** Used for `eta` until the workspace has ended calls to average. */
export const DEFAULT_CALL_SECONDS = 60;

const variablesOfLead = (input: PlaceCallInput) => ({
  ...input.variables,
  name: input.variables.name ?? input.leadName,
  lead_name: input.leadName,
  ...(input.leadEmail
    ? { lead_email: input.leadEmail, email: input.variables.email ?? input.leadEmail }
    : {}),
  ...(input.leadTimezone ? { lead_timezone: input.leadTimezone } : {}),
});

/** The stored call for a placement (the dialer creates it inside its own transaction). */
export function newCallOf(input: PlaceCallInput & { id?: string }): NewCall {
  const agentSpec = input.agent.spec;
  return {
    ...(input.id ? { id: input.id } : {}),
    agentId: input.agent.id,
    type: 'outbound',
    status: 'pending',
    phoneFrom: input.from,
    phoneTo: input.to,
    leadName: input.leadName,
    leadEmail: input.leadEmail ?? null,
    leadTimezone: input.leadTimezone ?? null,
    variables: variablesOfLead(input),
    metadata: input.metadata ?? {},
    settings: {
      provider: input.provider,
      ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
      ...(input.greeting !== undefined ? { greeting: input.greeting } : {}),
    },
    webhookUrl: input.webhookUrl ?? agentSpec.external_webhook_url ?? null,
    batchCallId: input.batchCallId ?? null,
    batchTaskId: input.batchTaskId ?? null,
  };
}

export function createCallService(options: CallServiceOptions): CallService {
  const { store, runtime, logger, node } = options;
  const clock = options.clock ?? systemClock;
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let stopped = false;
  let idleWaiters: (() => void)[] = [];
  const loop = new AbortController();
  const writer = createCallWriter({ store, logger });
  const afterCallWork = pLimit(options.afterCallConcurrency ?? 8);
  /** Admitted calls being started (their agents read), for `idle`. */
  let starting = 0;
  const releaseSlot = createSlotReleaser({
    store,
    logger,
    node,
    mayAdmit: () => !stopped && options.runsCalls !== false,
    onAdmitted: (workspace, admitted) => void startAdmitted(workspace, admitted),
    // The locked admission sees the whole queue.
    onUnfilled: (workspace) => void admit(workspace.id),
  });

  function settleIdle() {
    if (running.size > 0 || admissions.size > 0 || starting > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  async function place(workspace: Workspace, input: PlaceCallInput) {
    const call = await store.calls.create(workspace.id, newCallOf(input));
    const { waiting: ahead, busy } = await store.calls.queueAhead(workspace.id, call.seq);
    const max = Math.max(1, workspace.maxConcurrentCalls);
    let eta = 0;
    if (ahead + busy >= max) {
      const mean = (await store.calls.recentMeanDuration(workspace.id)) ?? DEFAULT_CALL_SECONDS;
      eta = Math.ceil(Math.floor((ahead + busy - max) / max + 1) * mean);
    }
    void admit(workspace.id);
    return { call, eta };
  }

  // One admission per workspace at a time in this process; requests during one share a single
  // follow-up, which sees every call stored or slot freed before it starts. (A queue of one
  // admission per ended call would hold the dialer's own admission behind all of them.)
  const admissions = coalescePerKey(async (workspaceId: string) => {
    try {
      // Most freed slots have no call waiting, or were handed to one at the release: then one
      // index probe, and no wait for the slot lock a dispatch may hold.
      if (!(await store.calls.hasWaiting(workspaceId))) return;
      const workspace = await store.workspaces.get(workspaceId);
      if (!workspace) return;
      await startAdmitted(
        workspace,
        await store.calls.admit(workspaceId, workspace.maxConcurrentCalls, node),
      );
    } catch (err) {
      logger.error({ err, workspace_id: workspaceId }, 'admitting calls failed');
    }
  }, settleIdle);

  /**
   * Runs calls admitted to this node (they are `ringing` and hold their slots). Never rejects:
   * when their agents cannot be read, the calls stay with this node, and its recovery (a
   * restart, or another node's takeover) fails them.
   */
  async function startAdmitted(workspace: Workspace, admitted: readonly Call[]): Promise<void> {
    if (admitted.length === 0 || stopped) return; // a stopped node's calls are recovered at restart
    starting += 1;
    try {
      // Each agent, its actions and its knowledge base once for the whole admission, not once
      // per call (hundreds of calls starting at once would each queue for a pool connection).
      const agentIds = [...new Set(admitted.map((c) => c.agentId))];
      const [attached, bases, agentList] = await Promise.all([
        store.actions.attachedTo(workspace.id, agentIds),
        knowledgeBasesOf(store, workspace.id, agentIds),
        Promise.all(agentIds.map((id) => store.agents.get(workspace.id, id))),
      ]);
      const agents = new Map<string, Prepared>();
      agentIds.forEach((id, i) =>
        agents.set(id, {
          agent: agentList[i] ?? null,
          attachedActions: attached.get(id) ?? [],
          knowledgeBase: bases.get(id) ?? null,
        }),
      );
      for (const call of admitted) launch(workspace, call, agents.get(call.agentId)!);
    } catch (err) {
      logger.error(
        { err, workspace_id: workspace.id, calls: admitted.length },
        'starting admitted calls failed',
      );
    } finally {
      starting -= 1;
      settleIdle();
    }
  }

  function admit(workspaceId: string): Promise<void> {
    if (stopped || options.runsCalls === false) return Promise.resolve();
    return admissions.run(workspaceId);
  }

  function launch(workspace: Workspace, call: Call, prepared: Prepared) {
    const controller = new AbortController();
    const done = runCall(workspace, call, prepared, controller.signal)
      .catch((err: unknown) => logger.error({ err, call_id: call.id }, 'a call failed unexpectedly'))
      .finally(() => {
        running.delete(call.id);
        void admit(workspace.id);
        settleIdle();
      });
    running.set(call.id, { controller, done });
  }

  async function runCall(
    workspace: Workspace,
    call: Call,
    { agent, attachedActions, knowledgeBase }: Prepared,
    signal: AbortSignal,
  ): Promise<void> {
    if (!agent) {
      await finalize(workspace, call, {
        status: 'failed',
        endCallReason: 'undefined',
        errorMessage: 'the agent was deleted before the call started',
      });
      return;
    }
    const provider = String(call.settings.provider ?? 'sim');
    const carrier = options.carriers[provider];
    if (!carrier) {
      await finalize(workspace, call, {
        status: 'failed',
        endCallReason: 'undefined',
        errorMessage: `the caller id's provider "${provider}" has no carrier on this server`,
      });
      return;
    }
    let conversation: Conversation;
    try {
      conversation = await runtime.open({
        conversationId: call.id,
        agent,
        workspace,
        variables: call.variables,
        style: 'voice',
        party: { ourNumber: call.phoneFrom, leadNumber: call.phoneTo },
        attachedActions,
        knowledgeBase,
        overrides: {
          ...(typeof call.settings.prompt === 'string' ? { prompt: call.settings.prompt } : {}),
          ...(typeof call.settings.greeting === 'string' ? { greeting_message: call.settings.greeting } : {}),
        },
      });
    } catch (err) {
      await finalize(workspace, call, {
        status: 'failed',
        endCallReason: 'undefined',
        errorMessage: `the conversation could not start: ${err instanceof Error ? err.message : String(err)}`,
      });
      return;
    }

    let outcome: DialOutcome;
    try {
      outcome = await carrier.dial({
        callId: call.id,
        from: call.phoneFrom,
        to: call.phoneTo,
        signal,
      });
    } catch (err) {
      outcome = { kind: 'failed', reason: err instanceof Error ? err.message : String(err) };
    }
    if (outcome.kind !== 'answered') {
      const status: CallStatus =
        outcome.kind === 'failed' && outcome.reason === 'canceled' ? 'canceled' : outcome.kind;
      await finalize(
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

    const answered = await writer.move({
      workspaceId: workspace.id,
      id: call.id,
      from: movesInto('in-progress'),
      patch: { status: 'in-progress', answeredAt: outcome.answeredAt, callSid: outcome.leg.sid },
    });
    if (!answered) {
      await outcome.leg.hangup();
      return; // moved elsewhere (canceled); nothing more to do here
    }
    await talkAndFinish(workspace, answered, agent, conversation, outcome.leg, signal);
  }

  /** A connected call: the conversation, the after-the-end work, the analysis, the last move. */
  async function talkAndFinish(
    workspace: Workspace,
    call: Call,
    agent: Agent,
    conversation: Conversation,
    leg: CallLeg,
    signal: AbortSignal,
  ): Promise<void> {
    const spec = agent.spec;
    const answeredAt = call.answeredAt ?? clock.now();
    const text = leg.text;
    if (!text) throw new Error('audio legs need the voice session');
    const answeredBy = text.answeredBy;
    const result: ConverseResult = await converse({
      leg: { ...leg, text },
      session: conversation.session,
      clock,
      ...(spec.max_duration ? { maxDuration: spec.max_duration } : {}),
      ...(spec.voicemail_message ? { voicemail: spec.voicemail_message } : {}),
      signal,
    });
    const endedAt = clock.now();
    // The line is free once the call hung up: the slot goes back now (and `ended_at` says when),
    // not after the work below (with a hosted model, the final pass and the analysis take
    // seconds). The status stays in-progress until the last move.
    const released = await releaseSlot({ workspace, callId: call.id, endedAt });
    // The dialer is told (standby calls to top up, or free slots to fill).
    if (released) options.onSlotReleased?.(released);
    // The work after the call is not urgent: a few calls at a time, so a burst of hang-ups does
    // not hold up live conversations and the dialer (their next steps wait behind it).
    await afterCallWork(async () => {
      await runtime
        .finish(conversation)
        .catch((err: unknown) => logger.warn({ err, call_id: call.id }, 'after-the-call actions failed'));
      const session = conversation.session;
      const analysis = await analyzeConversation(
        {
          agent: spec.agent ?? {},
          turns: session.turns,
          endCallReason: result.endCallReason,
          customEndCallReason: result.customEndCallReason,
          answeredBy,
          collectedVariables: conversation.actions.collected.collected(),
          actions: conversation.actions.recorder.timeline
            .filter((t) => t.status !== 'started')
            .map((t) => ({ name: t.name, action_type: t.action_type, success: t.status === 'success' })),
        },
        {
          llm: conversation.model.llm,
          ...(conversation.model.model ? { model: conversation.model.model } : {}),
          clock,
        },
      );
      await finalize(
        workspace,
        call,
        {
          status: result.status,
          endCallReason: result.endCallReason,
          customEndCallReason: result.customEndCallReason,
          errorMessage: result.errorMessage,
          analysis: analysis.analysis,
          quality: callQuality(session.modelCalls),
          durationSeconds: Math.max(0, Math.round((endedAt - answeredAt) / 1000)),
          endedAt,
          releasedAtHangUp: released !== null,
        },
        conversation,
        spec.agent?.timezone,
      );
    });
  }

  /** A slot of the workspace is free: the dialer is told, and waiting calls are admitted. */
  function slotReleased(workspace: Workspace, call: Call) {
    options.onSlotReleased?.(call);
    void admit(workspace.id);
  }

  /**
   * The last move, in one transaction with the usage and the webhook (grouped with other calls
   * ending at the same time); the slot is released. A call someone else already finished is left
   * as it is.
   */
  async function finalize(
    workspace: Workspace,
    call: Call,
    end: {
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
    },
    conversation?: Conversation,
    agentTimezone?: string,
  ): Promise<Call | null> {
    const patch: CallPatch = {
      status: end.status,
      endCallReason:
        end.endCallReason && end.endCallReason !== 'undefined'
          ? end.endCallReason
          : defaultEndReason(end.status),
      customEndCallReason: end.customEndCallReason ?? null,
      errorMessage: end.errorMessage ?? null,
      holdsSlot: false,
      endedAt: end.endedAt ?? clock.now(),
      durationSeconds: end.durationSeconds ?? 0,
      ...(end.analysis !== undefined ? { analysis: end.analysis } : {}),
      ...(end.quality !== undefined ? { quality: end.quality } : {}),
      ...(conversation
        ? {
            state: { ...conversation.session.snapshot(), ...conversation.actions.state() },
            transcript: conversation.session.transcript(),
          }
        : {}),
    };
    const final = await writer.end({
      workspace,
      callId: call.id,
      from: movesInto(end.status),
      patch,
      ...(agentTimezone ? { agentTimezone } : {}),
    });
    if (final?.webhookUrl) options.webhooks?.wake();
    if (final && !end.releasedAtHangUp) slotReleased(workspace, final);
    if (final)
      logger.info(
        { call_id: final.id, status: final.status, timezone: callTimezone(final, agentTimezone) },
        'call ended',
      );
    return final;
  }

  async function receive(workspace: Workspace, input: { from: string; to: string }): Promise<Call> {
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
      settings: { provider: number?.provider ?? 'sim', default_agent: defaultAgentId },
      node,
    });
    if (!(await store.calls.takeSlot(workspace.id, call.id, Math.max(1, workspace.maxConcurrentCalls)))) {
      return (
        (await finalize(workspace, call, {
          status: 'busy',
          errorMessage: 'the workspace was at its max_concurrent_calls',
        })) ?? call
      );
    }
    const controller = new AbortController();
    const done = answerInbound(workspace, call, controller.signal)
      .catch((err: unknown) => logger.error({ err, call_id: call.id }, 'an inbound call failed unexpectedly'))
      .finally(() => {
        running.delete(call.id);
        void admit(workspace.id);
        settleIdle();
      });
    running.set(call.id, { controller, done });
    return call;
  }

  /** Routing (the inbound webhook, rules 1-4), then the conversation on the carrier's leg. */
  async function answerInbound(workspace: Workspace, call: Call, signal: AbortSignal): Promise<void> {
    const fail = (status: CallStatus, errorMessage: string) =>
      finalize(workspace, call, { status, errorMessage }).then(() => undefined);
    let agent = call.agentId ? await store.agents.get(workspace.id, call.agentId) : null;
    const defaultAgentId =
      typeof call.settings.default_agent === 'string' ? call.settings.default_agent : null;
    let variables: Record<string, string | number | boolean> = {};
    let metadata: Record<string, unknown> = {};
    const hookUrl = agent?.spec.inbound_call_webhook_url;
    if (agent && hookUrl && options.inboundWebhook) {
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
          http: options.inboundWebhook.http,
          clock,
          ...(options.inboundWebhook.timeoutMs ? { timeoutMs: options.inboundWebhook.timeoutMs } : {}),
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
                logger.warn({ err, call_id: call.id }, 'an inbound webhook log was not stored'),
              );
          },
        },
      );
      if (decision.action === 'disconnect')
        return fail('canceled', 'disconnected: the inbound webhook answered without an agent');
      if (decision.action === 'fallback') {
        agent = defaultAgentId ? await store.agents.get(workspace.id, defaultAgentId) : null;
        if (!agent)
          return fail('canceled', 'disconnected: the inbound webhook failed and no default agent is set');
      } else {
        if (decision.modelId) {
          const rerouted = await store.agents.get(workspace.id, decision.modelId);
          if (rerouted) agent = rerouted;
          else {
            agent = defaultAgentId ? await store.agents.get(workspace.id, defaultAgentId) : null;
            if (!agent)
              return fail(
                'canceled',
                `disconnected: override_model_id ${decision.modelId} is not an agent of this workspace`,
              );
          }
        }
        variables = decision.customVariables;
        metadata = decision.metadata;
      }
    }
    if (!agent) return fail('failed', 'no agent answers this number (attach one, or set a default agent)');
    const carrier = options.carriers[String(call.settings.provider ?? 'sim')];
    if (!carrier?.incoming) return fail('failed', 'this carrier cannot take inbound calls on this server');
    const routedFrom = call.agentId && call.agentId !== agent.id ? call.agentId : null;
    const answered = await store.calls.update(workspace.id, call.id, movesInto('in-progress'), {
      status: 'in-progress',
      agentId: agent.id,
      variables: { ...call.variables, ...variables },
      metadata: { ...call.metadata, ...metadata },
      ...(routedFrom ? { settings: { ...call.settings, routed_from: routedFrom } } : {}),
      answeredAt: clock.now(),
    });
    if (!answered) return;
    const current = answered;
    let conversation: Conversation;
    try {
      conversation = await runtime.open({
        conversationId: call.id,
        agent,
        workspace,
        variables: current.variables,
        style: 'voice',
        party: { ourNumber: call.phoneTo, leadNumber: call.phoneFrom },
      });
    } catch (err) {
      await finalize(workspace, current, {
        status: 'failed',
        errorMessage: `the conversation could not start: ${err instanceof Error ? err.message : String(err)}`,
      });
      return;
    }
    const leg = await carrier.incoming({ callId: call.id, from: call.phoneFrom, to: call.phoneTo });
    await store.calls.update(workspace.id, call.id, ['in-progress'], { callSid: leg.sid });
    await talkAndFinish(workspace, { ...current, callSid: leg.sid }, agent, conversation, leg, signal);
  }

  /** Calls `owner` was running when it stopped: their outcome is unknown, so they fail. */
  async function failInterrupted(owner: string) {
    const interrupted = await store.calls.ownedBy(owner, ['ringing', 'in-progress']);
    for (const call of interrupted) {
      const workspace = await store.workspaces.get(call.workspaceId);
      if (!workspace) continue;
      await finalize(workspace, call, {
        status: 'failed',
        errorMessage: 'the call was interrupted: the server running it stopped',
      });
    }
    return interrupted.length;
  }

  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const deadAfterMs = options.deadAfterMs ?? 30_000;
  let lastBeat = Number.NEGATIVE_INFINITY;

  /**
   * Liveness: this node says it is alive; a node silent for `deadAfterMs` is taken over: its
   * calls fail (their outcome is unknown, and their slots come back) and the recipients it had
   * claimed without a call return to the queue. Two nodes taking over the same one is harmless:
   * each move is a compare and set.
   */
  async function liveness() {
    const now = clock.now();
    if (now - lastBeat < heartbeatMs) return;
    lastBeat = now;
    await store.nodes.heartbeat(node);
    for (const dead of await store.nodes.silentSince(now - deadAfterMs, node)) {
      const failed = await failInterrupted(dead);
      const released = await store.batches.releaseClaims({ node: dead });
      await store.nodes.forget(dead, now - deadAfterMs);
      logger.warn({ node: dead, failed_calls: failed, released_claims: released }, 'took over a silent node');
    }
  }

  async function poll() {
    while (!loop.signal.aborted) {
      try {
        await liveness();
      } catch (err) {
        logger.error({ err }, 'the liveness check failed');
      }
      try {
        for (const workspaceId of await store.calls.workspacesWaiting()) await admit(workspaceId);
      } catch (err) {
        logger.error({ err }, 'looking for waiting calls failed');
      }
      await clock.sleep(options.pollIntervalMs ?? 1000, loop.signal).catch(() => undefined);
    }
  }

  return {
    place,
    receive,
    admit,
    run: startAdmitted,
    async start(signal) {
      if (options.runsCalls === false) return;
      signal?.addEventListener('abort', () => loop.abort(), { once: true });
      await store.nodes.heartbeat(node);
      await failInterrupted(node);
      void poll();
    },
    async stop(graceMs = 10_000) {
      stopped = true;
      loop.abort();
      const all = [...running.values()];
      const grace = new AbortController();
      const timer = clock.sleep(graceMs, grace.signal).then(
        () => all.forEach((r) => r.controller.abort()),
        () => undefined,
      );
      await Promise.race([Promise.all(all.map((r) => r.done)), timer]);
      grace.abort(); // no timer outlives the stop
      all.forEach((r) => r.controller.abort());
      await Promise.all(all.map((r) => r.done));
    },
    idle() {
      if (running.size === 0 && admissions.size === 0 && starting === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    get running() {
      return running.size;
    },
  };
}
