import { newCallOf, type PlaceCallInput } from '../calls/index.ts';
import { newId, normalizeE164, systemClock, type Clock, type Logger } from '../core/index.ts';
import {
  DispatchRefused,
  type Agent,
  type AgentVersion,
  type Batch,
  type BatchTask,
  type Call,
  type NewCall,
  type Store,
  type Workspace,
} from '../store/index.ts';
import { shareSlotsRound } from './fairness.ts';
import { createTokenBucket, type TokenBucket } from './pacing.ts';
import { isOpen, nextOpening, type CallTimeWindow } from './window.ts';

// The campaign dialer (DESIGN.md sections 3 and 4). One loop per worker process: each round it
// expires old batches, then for every workspace with dialable batches computes the free slots
// (max_concurrent_calls minus every call holding or waiting for a slot), gives each batch at most
// max - reserved_concurrency of the workspace's calls, shares the slots fairly between the
// batches (round robin), paces them with the workspace's calls-per-second bucket, and claims that
// many recipients. A claimed recipient's call row (admitted at once when a slot is free: ringing,
// holding it) and its move to `dispatched` commit together, then the calls module starts the
// call; so after a crash a claimed recipient without a call was provably not dialed and goes back
// to the queue, and one with a call is never claimed again (a call left ringing by a crash fails
// as interrupted). Once a batch is dialing, it also keeps standby calls: recipients dispatched as
// calls waiting for a slot, to which a call hanging up hands its slot at once (see `standbyOf`).
// Rounds run when woken (a slot freed, a batch created or resumed, another process's NOTIFY), at
// the next trigger or window opening, and at least every `pollIntervalMs`.

/** The calls module as the dialer uses it. */
export interface PlaceCallPort {
  /**
   * Runs calls the dialer created already admitted (ringing, holding their slots). Never
   * rejects: a failure is the calls module's to record.
   */
  run(workspace: Workspace, admitted: readonly Call[]): Promise<void>;
}

export interface DialerOptions {
  store: Store;
  calls: PlaceCallPort;
  clock?: Clock;
  logger: Logger;
  /** This process: the owner of its claims. */
  node: string;
  /** Longest sleep between rounds (default 1 s). */
  pollIntervalMs?: number;
  /** Claims older than this without a call are returned to the queue (default 5 min). */
  staleClaimMs?: number;
  /** Told after a round dispatched calls (other processes' dialers: NOTIFY). */
  onDispatched?: () => void;
  /** Whether this process may take calls now (a saturated one dispatches none; default yes). */
  mayDial?: () => boolean;
  /** How many new calls this process may take now (its headroom; default any). */
  allowance?: () => number;
}

export interface Dialer {
  start(signal?: AbortSignal): Promise<void>;
  /** Runs a round as soon as possible. */
  wake(): void;
  /** A silent node was taken over: the recipients it claimed without a call return to the queue. */
  takeOver(deadNode: string): Promise<void>;
  /** One round now (tests); resolves with the number of calls dispatched. */
  round(): Promise<number>;
  /** Resolves once the loop is waiting for its next round (tests moving a manual clock). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const MAX_CLAIM = 200;

/** A worker seen this recently is taken to be dialing too (workers beat every 5 s). */
const OTHERS_ALIVE_MS = 15_000;

/**
 * How many standby calls a workspace's batches keep waiting beyond its free slots: a call that
 * hangs up hands its slot to one of them in the same statement (the calls module's release), so
 * a freed line rings again within one round trip, not after a dialer round. As many as the
 * workspace's slots (a whole wave of calls may end at once), at most one claim; none when the
 * workspace paces its calls per second (a standby call would ring when a slot frees, unpaced).
 */
function standbyOf(workspace: Workspace): number {
  if (workspace.callsPerSecond !== null && workspace.callsPerSecond > 0) return 0;
  return Math.min(MAX_CLAIM, Math.max(1, workspace.maxConcurrentCalls));
}

export function createDialer(options: DialerOptions): Dialer {
  const { store, logger, node } = options;
  const clock = options.clock ?? systemClock;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const buckets = new Map<string, { rate: number | null; bucket: TokenBucket }>();
  /** The batch each workspace's fair share started after last round (rotation). */
  const rotation = new Map<string, string>();
  let loop = new AbortController();
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let running: Promise<void> | null = null;
  let waiting = false;
  let idleWaiters: (() => void)[] = [];
  function setWaiting(value: boolean) {
    waiting = value;
    if (!value) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function bucketFor(workspace: Workspace): TokenBucket {
    const rate =
      workspace.callsPerSecond !== null && workspace.callsPerSecond > 0 ? workspace.callsPerSecond : null;
    const known = buckets.get(workspace.id);
    if (known && known.rate === rate) return known.bucket;
    const bucket = createTokenBucket({ ratePerSecond: rate, clock });
    buckets.set(workspace.id, { rate, bucket });
    return bucket;
  }

  async function expire(now: number) {
    for (const batch of await store.batches.expired(now)) {
      await store.batches.move(
        batch.workspaceId,
        batch.id,
        ['scheduled', 'in_progress', 'paused'],
        'canceled',
      );
      logger.info({ batch_id: batch.id }, 'batch expired: canceled with its queued recipients');
    }
  }

  /** The live version of each agent that has one, in one read. */
  async function liveVersions(workspaceId: string, agents: readonly Agent[]) {
    const ids = agents.flatMap((a) => (a.liveVersionId === null ? [] : [a.liveVersionId]));
    return ids.length === 0 ? new Map<string, AgentVersion>() : store.agentVersions.getMany(workspaceId, ids);
  }

  /** An agent with the version its calls run now (its live one; null: the draft). */
  type LiveAgent = { agent: Agent; version: AgentVersion | null };

  /** The call of one claimed recipient, or the reason it cannot be called (it fails now). */
  async function callFor(
    workspace: Workspace,
    batch: Batch,
    live: LiveAgent,
    task: BatchTask,
    overrides: Map<string, LiveAgent | null>,
  ): Promise<NewCall | string> {
    const to = normalizeE164(task.toPhoneNumber);
    if (!to) return `to_phone_number "${task.toPhoneNumber}" is not a dialable number`;
    let callAgent = live;
    if (task.overrideModelId) {
      // Each override agent (and its live version) once per claim.
      let override = overrides.get(task.overrideModelId);
      if (override === undefined) {
        const agent = await store.agents.get(workspace.id, task.overrideModelId);
        const version = agent
          ? (await liveVersions(workspace.id, [agent])).get(agent.liveVersionId ?? '')
          : null;
        override = agent ? { agent, version: version ?? null } : null;
        overrides.set(task.overrideModelId, override);
      }
      if (!override) return `override_model_id ${task.overrideModelId} is not an agent of this workspace`;
      callAgent = override;
    }
    const variables: PlaceCallInput['variables'] = {};
    for (const [key, value] of Object.entries(task.customVariables ?? {})) {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        variables[key] = value;
      else if (value !== null && value !== undefined) variables[key] = JSON.stringify(value);
    }
    return newCallOf({
      id: newId(),
      agent: callAgent.agent,
      version: callAgent.version,
      from: batch.fromPhoneNumber,
      provider: batch.fromProvider,
      to,
      leadName: task.leadName ?? '',
      leadEmail: task.leadEmail ?? null,
      variables,
      batchCallId: batch.id,
      batchTaskId: task.id,
    });
  }

  /**
   * Dispatches a claim: recipients that cannot be called fail before dialing; the others' call
   * rows and their move to `dispatched` commit together, in one transaction for the whole claim
   * (at most once, nothing lost), or not at all when the batch was paused or canceled meanwhile.
   * Answers how many calls were created.
   */
  async function dispatch(
    workspace: Workspace,
    batch: Batch,
    live: LiveAgent,
    tasks: BatchTask[],
  ): Promise<number> {
    const calls: NewCall[] = [];
    const overrides = new Map<string, LiveAgent | null>();
    for (const task of tasks) {
      const call = await callFor(workspace, batch, live, task, overrides);
      if (typeof call === 'string') await store.batches.fail(task.id, call);
      else calls.push(call);
    }
    if (calls.length === 0) return 0;
    const items = calls.map((c) => ({ taskId: c.batchTaskId!, callId: c.id! }));
    try {
      // The calls take their slots as they are created (under the workspace's slot lock): the
      // refill of a freed slot is this one transaction, not a dispatch and then an admission.
      const admitted = await store.transaction(async (repos) => {
        // Admitted within the batch's limit (max - reserved); the rest wait as standby calls.
        const started = await repos.calls.createAdmitted(
          workspace.id,
          calls,
          Math.max(1, workspace.maxConcurrentCalls - batch.reservedConcurrency),
          node,
        );
        await repos.batches.dispatchMany(batch.id, items);
        return started;
      });
      // Not awaited: starting the calls (their agents, actions and conversations) is the calls
      // module's work, and the next round must not wait for it.
      void options.calls.run(workspace, admitted);
      return calls.length;
    } catch (err) {
      if (!(err instanceof DispatchRefused)) throw err;
      // Rolled back, so no call exists: the claims go back to the queue (or are canceled).
      await store.batches.returnClaims(
        workspace.id,
        batch.id,
        items.map((i) => i.taskId),
        node,
      );
      return 0;
    }
  }

  async function dialWorkspace(
    workspaceId: string,
    batches: Batch[],
    now: number,
    budget: number,
  ): Promise<number> {
    const due = batches.filter((b) => b.pendingCount > 0 && (b.triggerAt === null || b.triggerAt <= now));
    if (due.length === 0) return 0;
    // Independent reads at once (each a round trip, and a freed slot waits for this round).
    const agentIds = [...new Set(due.map((b) => b.agentId))];
    const [workspace, inUse, agentList] = await Promise.all([
      store.workspaces.get(workspaceId),
      store.calls.slotsWanted(workspaceId),
      Promise.all(agentIds.map((id) => store.agents.get(workspaceId, id))),
    ]);
    if (!workspace) return 0;
    const agents = new Map(agentIds.map((id, i) => [id, agentList[i]]));
    // Campaign calls run each agent's live version, read once per round.
    const versions = await liveVersions(
      workspaceId,
      agentList.filter((a): a is Agent => a !== null && a !== undefined),
    );
    const max = Math.max(1, workspace.maxConcurrentCalls);
    // inUse counts the calls waiting for a slot too (standby calls among them).
    const free = max - inUse;
    const ahead = (await standbyAllowed()) ? standbyOf(workspace) : 0;
    const dialable: { batch: Batch; agent: LiveAgent; wanted: number; standby: number }[] = [];
    for (const batch of due) {
      const agent = agents.get(batch.agentId);
      if (!agent) continue;
      const version = versions.get(agent.liveVersionId ?? '') ?? null;
      const agentZone = (version?.snapshot.spec ?? agent.spec).agent?.timezone ?? 'UTC';
      const window = batch.callTimeWindow as CallTimeWindow | null;
      if (window && !isOpen(window, now, agentZone)) continue;
      // This batch may bring the workspace's calls up to max - reserved, no further. Standby
      // calls wait beyond that (they take a slot only within it), for a batch already dialing
      // and without a window (a standby call must not ring after the window closed).
      const room = max - batch.reservedConcurrency - inUse;
      const standby = batch.status === 'in_progress' && !window?.enable ? ahead : 0;
      if (room + standby <= 0) continue;
      const wanted = Math.min(Math.max(0, room), batch.pendingCount, MAX_CLAIM);
      dialable.push({
        batch,
        agent: { agent, version },
        wanted,
        standby: Math.min(room + standby, batch.pendingCount, MAX_CLAIM) - wanted,
      });
    }
    if (dialable.length === 0) return 0;
    const bucket = bucketFor(workspace);
    const wantedTotal = dialable.reduce((sum, d) => sum + d.wanted, 0);
    // First the free slots, shared fairly; then the standby calls (none when paced).
    const byLoad = budget < Math.min(free, wantedTotal);
    const granted = free > 0 && wantedTotal > 0 ? bucket.take(Math.min(free, wantedTotal, budget)) : 0;
    const { shares, lastServed } = shareSlotsRound(
      granted,
      dialable.map((d) => ({ id: d.batch.id, wanted: d.wanted })),
      rotation.get(workspace.id),
    );
    if (lastServed) rotation.set(workspace.id, lastServed);
    // The workspace's calls wanting a slot may reach max + ahead.
    // None while the process's headroom holds calls back: they would only wait here.
    const standbyRoom = byLoad ? 0 : ahead + free - granted;
    const standbyShares = shareSlotsRound(
      Math.max(0, standbyRoom),
      dialable.map((d) => ({ id: d.batch.id, wanted: d.standby })),
      rotation.get(workspace.id),
    ).shares;
    let dispatched = 0;
    let unused = 0;
    const later: { d: (typeof dialable)[number]; tasks: BatchTask[] }[] = [];
    for (const d of dialable) {
      const n = shares.get(d.batch.id) ?? 0;
      const extra = standbyShares.get(d.batch.id) ?? 0;
      if (n + extra <= 0) continue;
      const tasks = await store.batches.claim(d.batch.id, n + extra, node);
      unused += Math.max(0, n - tasks.length);
      // The calls that take free slots are dispatched first, every batch's; the standby calls
      // after them, so that one batch's standby calls never take another's free slots.
      if (tasks.length > n) later.push({ d, tasks: tasks.slice(n) });
      dispatched += await dispatchSafely(workspace, d, tasks.slice(0, n));
      if (tasks.length < n + extra) await store.batches.complete(d.batch.id);
    }
    for (const { d, tasks } of later) dispatched += await dispatchSafely(workspace, d, tasks);
    // Tokens for recipients another process claimed first go back: pacing must not fall behind.
    if (unused > 0) bucket.refund(unused);
    return dispatched;
  }

  async function dispatchSafely(
    workspace: Workspace,
    d: { batch: Batch; agent: LiveAgent },
    tasks: BatchTask[],
  ): Promise<number> {
    if (tasks.length === 0) return 0;
    try {
      return await dispatch(workspace, d.batch, d.agent, tasks);
    } catch (err) {
      // The claims stay; this node's restart or the abandoned-claim sweep puts them back.
      logger.error({ err, batch_id: d.batch.id }, 'dispatching recipients failed');
      return 0;
    }
  }

  /**
   * Standby calls only when this is the one process dialing: the hand-off admits a standby call
   * in the process whose call hung up, so with several workers the calls would gather on the
   * first to run them; there the dialers share freed slots as before (woken by NOTIFY). Checked
   * at most once a second.
   */
  let soleWorker = { at: Number.NEGATIVE_INFINITY, value: false };
  async function standbyAllowed(): Promise<boolean> {
    const now = clock.now();
    if (now - soleWorker.at < 1000) return soleWorker.value;
    const others = await store.nodes.othersSeenSince(now - OTHERS_ALIVE_MS, node);
    soleWorker = { at: now, value: others === 0 };
    return soleWorker.value;
  }

  let lastSweep = 0;

  let lastExpiry = Number.NEGATIVE_INFINITY;

  async function round(): Promise<number> {
    const now = clock.now();
    // Batches expire days after their creation: a look every second is plenty, and keeps the
    // rounds that refill freed slots short.
    if (now - lastExpiry >= 1000) {
      lastExpiry = now;
      await expire(now);
    }
    // A claim a dialer never turned into a call (its process died, or its dispatch failed) was
    // provably not dialed: back to the queue once it is old enough to be abandoned.
    const staleMs = options.staleClaimMs ?? 300_000;
    if (now - lastSweep >= staleMs / 5) {
      lastSweep = now;
      const released = await store.batches.releaseClaims({ claimedBefore: now - staleMs });
      if (released > 0) logger.warn({ released }, 'abandoned claims returned to the queue');
    }
    // A saturated process dispatches nothing: the recipients wait for it or another node.
    if (options.mayDial && !options.mayDial()) return 0;
    let budget = options.allowance?.() ?? Infinity;
    if (budget <= 0) return 0;
    const byWorkspace = new Map<string, Batch[]>();
    for (const batch of await store.batches.active()) {
      const list = byWorkspace.get(batch.workspaceId) ?? [];
      list.push(batch);
      byWorkspace.set(batch.workspaceId, list);
    }
    let dispatched = 0;
    for (const [workspaceId, batches] of byWorkspace) {
      const n = await dialWorkspace(workspaceId, batches, now, budget);
      dispatched += n;
      budget -= n;
      if (budget <= 0) break;
    }
    if (dispatched > 0) options.onDispatched?.();
    return dispatched;
  }

  /** When the next round is due without a wake-up: a trigger, a window opening, or the poll. */
  async function nextDue(now: number): Promise<number> {
    let due = now + pollIntervalMs;
    for (const batch of await store.batches.active()) {
      if (batch.pendingCount <= 0) continue;
      if (batch.triggerAt !== null && batch.triggerAt > now) due = Math.min(due, batch.triggerAt);
      const window = batch.callTimeWindow as CallTimeWindow | null;
      if (window?.enable) {
        const agent = await store.agents.get(batch.workspaceId, batch.agentId);
        const zone = agent?.spec.agent?.timezone ?? 'UTC';
        const opens = nextOpening(window, now, zone);
        if (opens !== null && opens > now) due = Math.min(due, opens);
      }
    }
    for (const { bucket } of buckets.values()) {
      const wait = bucket.msUntilNext();
      if (wait > 0) due = Math.min(due, now + wait);
    }
    return due;
  }

  async function run() {
    while (!loop.signal.aborted) {
      woken = false;
      waiting = false;
      // Plans are made from the time the round looked at: a window that opened or a trigger
      // that passed while the round ran is then due at once, not an hour later.
      const roundAt = clock.now();
      let more = 0;
      try {
        more = await round();
      } catch (err) {
        logger.error({ err }, 'a dialer round failed');
      }
      if (loop.signal.aborted) break;
      if (woken || more > 0) continue;
      let waitMs = pollIntervalMs;
      try {
        waitMs = Math.max(0, (await nextDue(roundAt)) - clock.now());
      } catch (err) {
        logger.error({ err }, 'the dialer could not plan its next round');
      }
      const sleeper = new AbortController();
      wakeUp = () => sleeper.abort();
      const onStop = () => sleeper.abort();
      loop.signal.addEventListener('abort', onStop, { once: true });
      // A stop that came while the round ran fired before this listener existed.
      if (loop.signal.aborted) sleeper.abort();
      if (!woken) {
        const slept = clock.sleep(waitMs, sleeper.signal).catch(() => undefined);
        setWaiting(true);
        await slept;
        setWaiting(false);
      }
      loop.signal.removeEventListener('abort', onStop);
      wakeUp = null;
    }
  }

  return {
    async start(signal) {
      if (loop.signal.aborted) loop = new AbortController(); // restarted after stop()
      const current = loop;
      signal?.addEventListener('abort', () => current.abort(), { once: true });
      // Claims this node held when it stopped had no call yet: back to the queue.
      const released = await store.batches.releaseClaims({ node });
      if (released > 0)
        logger.warn({ released }, 'recipients claimed before a restart returned to the queue');
      const stale = await store.batches.releaseClaims({
        claimedBefore: clock.now() - (options.staleClaimMs ?? 300_000),
      });
      if (stale > 0) logger.warn({ released: stale }, 'stale claims of another node returned to the queue');
      running = run();
    },
    async takeOver(deadNode) {
      const released = await store.batches.releaseClaims({ node: deadNode });
      if (released > 0)
        logger.warn({ node: deadNode, released }, 'claims of a silent node returned to the queue');
    },
    wake() {
      woken = true;
      wakeUp?.();
    },
    round,
    idle() {
      if (waiting || !running) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async stop() {
      loop.abort();
      await running;
      running = null;
      setWaiting(true);
    },
  };
}
