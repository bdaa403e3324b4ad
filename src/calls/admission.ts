import { coalescePerKey } from '../core/index.ts';
import { prepareRuns, runKey } from '../runtime/index.ts';
import type { Agent, AgentVersion, Call, NewCall, Workspace } from '../store/index.ts';
import type { CallContext } from './context.ts';
import type { Prepared } from './outbound.ts';

// Admission (DESIGN.md section 4): a call is stored `pending`; waiting calls get the workspace's
// free slots in order (counted in the store, so every process shares them). A slot freed admits
// the next waiting call at once; a poll (liveness.ts) catches calls placed by other processes.

export interface PlaceCallInput {
  /** The call's id, when the caller needs it before the call is stored (a WS media session). */
  id?: string;
  /** `outbound` (default), or `web`: a test call whose far end is a WebSocket client. */
  type?: 'outbound' | 'web';
  /** The node that must run the call (a WS media call runs where its client binds); default any. */
  node?: string;
  agent: Agent;
  /**
   * The published version the call runs (its config, actions and knowledge base attachment),
   * fixed now even if another is published before it starts; null: the draft; absent: the live
   * one (the agent's `liveVersionId`; the draft while it was never published).
   */
  version?: AgentVersion | null;
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

/** Most waiting calls one admission takes (the store's default). */
const MAX_CLAIM = 1000;

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

/** A placement whose version is known (null: the draft). */
export type ResolvedPlaceCallInput = PlaceCallInput & { version: AgentVersion | null };

/** The stored call for a placement (the dialer creates it inside its own transaction). */
export function newCallOf(input: ResolvedPlaceCallInput): NewCall {
  const agentSpec = input.version?.snapshot.spec ?? input.agent.spec;
  return {
    ...(input.id ? { id: input.id } : {}),
    ...(input.node ? { node: input.node } : {}),
    agentId: input.agent.id,
    agentVersionId: input.version?.id ?? null,
    type: input.type ?? 'outbound',
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

export interface Admission {
  place(workspace: Workspace, input: PlaceCallInput): Promise<{ call: Call; eta: number }>;
  admit(workspaceId: string): Promise<void>;
  /** Starts calls admitted to this node (they are `ringing` and hold their slots). */
  startAdmitted(workspace: Workspace, admitted: readonly Call[]): Promise<void>;
  /** Admissions and starts in flight (for `idle`). */
  readonly busy: number;
}

export function createAdmission(
  ctx: Omit<CallContext, 'admit'>,
  options: {
    /** Whether this process may start calls (not when stopping). */
    mayAdmit: () => boolean;
    /** Whether it may take more calls now (not when saturated either). */
    mayClaim: () => boolean;
    /** How many waiting calls it may take now (default: as many as there are free slots). */
    claimLimit?: () => number;
    /** Told how many waiting calls it just took. */
    claimed?: (calls: number) => void;
    launch: (workspace: Workspace, call: Call, prepared: Prepared) => void;
    settled: () => void;
  },
): Admission {
  const { store, logger, node } = ctx;
  let starting = 0;

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
      const limit = Math.min(MAX_CLAIM, options.claimLimit?.() ?? MAX_CLAIM);
      if (limit <= 0) return;
      const admitted = await store.calls.admit(workspaceId, workspace.maxConcurrentCalls, node, limit);
      options.claimed?.(admitted.length);
      await startAdmitted(workspace, admitted);
    } catch (err) {
      logger.error({ err, workspace_id: workspaceId }, 'admitting calls failed');
    }
  }, options.settled);

  /**
   * Never rejects: when their agents cannot be read, the calls stay with this node, and its
   * recovery (a restart, or another node's takeover) fails them.
   */
  async function startAdmitted(workspace: Workspace, admitted: readonly Call[]): Promise<void> {
    if (admitted.length === 0 || !options.mayAdmit()) return; // a stopped node's calls are recovered at restart
    starting += 1;
    try {
      // Each agent version, its actions and its knowledge base once for the whole admission, not
      // once per call (hundreds of calls starting at once would each queue for a pool connection).
      const runs = await prepareRuns(
        store,
        workspace.id,
        admitted.map((c) => ({ agentId: c.agentId, versionId: c.agentVersionId })),
      );
      for (const call of admitted)
        options.launch(workspace, call, runs.get(runKey(call.agentId, call.agentVersionId))!);
    } catch (err) {
      logger.error(
        { err, workspace_id: workspace.id, calls: admitted.length },
        'starting admitted calls failed',
      );
    } finally {
      starting -= 1;
      options.settled();
    }
  }

  /** The agent's live version, null while it was never published (its draft is live). */
  async function liveVersionOf(agent: Agent): Promise<AgentVersion | null> {
    if (agent.liveVersionId === null) return null;
    return store.agentVersions.get(agent.workspaceId, agent.id, agent.liveVersionId);
  }

  function admit(workspaceId: string): Promise<void> {
    if (!options.mayClaim()) return Promise.resolve();
    return admissions.run(workspaceId);
  }

  async function place(workspace: Workspace, input: PlaceCallInput) {
    const version = input.version !== undefined ? input.version : await liveVersionOf(input.agent);
    const call = await store.calls.create(workspace.id, newCallOf({ ...input, version }));
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

  return {
    place,
    admit,
    startAdmitted,
    get busy() {
      return admissions.size + starting;
    },
  };
}
