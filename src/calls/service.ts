import pLimit from 'p-limit';
import { systemClock, type Clock, type HttpPort, type LoadGate, type Logger } from '../core/index.ts';
import type { AgentRuntime } from '../runtime/index.ts';
import type { SpeechRegistry } from '../speech/index.ts';
import type { Call, Store, Workspace } from '../store/index.ts';
import type { Carrier } from '../telephony/index.ts';
import { createAdmission, type PlaceCallInput } from './admission.ts';
import { LOAD_SHOWS_AFTER_MS, createHeadroom, type HeadroomOptions } from './headroom.ts';
import type { CallContext, SpeechChoice } from './context.ts';
import { receiveInbound } from './inbound.ts';
import { recoverLeftRecordings } from './cut-short.ts';
import { createLiveness, failInterrupted } from './liveness.ts';
import { runOutbound } from './outbound.ts';
import type { CallRecordings } from './recording.ts';
import { createSlotReleaser } from './releases.ts';
import { createTurnLog } from './turn-log.ts';
import { createCallWriter } from './writer.ts';

// The call lifecycle (DESIGN.md section 4), put together: admission (admission.ts), outbound
// calls (outbound.ts), inbound calls (inbound.ts), the talk and what follows it (after-call.ts),
// and liveness (liveness.ts). This file owns what they share: the calls running in this process,
// the poll, and stopping.

export interface CallServiceOptions {
  store: Store;
  runtime: AgentRuntime;
  /** Carriers by provider name; numbers of other providers fail to dial with a clear message. */
  carriers: Record<string, Carrier>;
  /**
   * The speech voice calls run on (src/app.ts chooses it), or why this server has none: then calls
   * on audio legs fail with that reason, and text legs (the sim's fast path) still talk.
   */
  speech: SpeechChoice;
  /**
   * Whether this process is saturated: then it claims no new calls (default never); and how many
   * it may claim now when not (default any).
   */
  load?: Pick<LoadGate, 'saturated'> &
    Partial<Pick<LoadGate, 'allowance' | 'claimed' | 'utilization' | 'windows'>>;
  /**
   * The event loop's busy share this process fills with calls (headroom.ts): beyond the calls
   * predicted to fit, new ones wait. Needs `load`'s utilization; default no limit.
   */
  headroom?: HeadroomOptions;
  /** Chooses each voice call's own speech; absent: every call runs on `speech`. */
  speechRegistry?: SpeechRegistry;
  /** Where calls of agents with `is_recording` are recorded; absent: they are not. */
  recordings?: CallRecordings;
  clock?: Clock;
  logger: Logger;
  /** This process (`PARLEY_NODE_NAME`): the owner of the calls it runs. */
  node: string;
  /** Where clients reach this node (PARLEY_PUBLIC_URL), told to the others with each heartbeat. */
  publicUrl?: string;
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
  /** Told when a silent node was taken over, after its calls failed (the dialer frees its claims). */
  onTakeover?: (deadNode: string) => Promise<void>;
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
  /** Gives free slots of the workspace to its waiting calls and runs them. */
  admit(workspaceId: string): Promise<void>;
  /**
   * Runs calls that were admitted to this node when they were created (the dialer creates a
   * claim's calls and takes their slots in one transaction).
   */
  run(workspace: Workspace, admitted: readonly Call[]): Promise<void>;
  /** Starts the poll for waiting calls and recovers this node's interrupted calls. */
  start(signal?: AbortSignal): Promise<void>;
  /** Looks for waiting calls now rather than at the next poll (another node placed one for us). */
  wake(): void;
  /** Stops admitting; calls in progress get `graceMs` to finish, then are hung up. */
  stop(graceMs?: number): Promise<void>;
  /** Resolves when no call runs in this process (tests). */
  idle(): Promise<void>;
  readonly running: number;
  /** How many new calls this process may take now (0 while saturated or full). */
  allowance(): number;
}

export function createCallService(options: CallServiceOptions): CallService {
  const { store, logger, node } = options;
  const clock = options.clock ?? systemClock;
  const running = new Map<
    string,
    { controller: AbortController; done: Promise<void>; talkingSince: number | null }
  >();
  let stopped = false;
  let idleWaiters: (() => void)[] = [];
  const loop = new AbortController();
  /** Aborted to end the poll's wait early. */
  let nap = new AbortController();
  const mayAdmit = () => !stopped && options.runsCalls !== false;
  // A saturated process claims no new calls; those it holds still start (docs/operations.md).
  const clear = () => mayAdmit() && !options.load?.saturated;
  // New calls are also paced (their load shows in the lag only once they talk), and held to the
  // calls predicted to fit.
  const headroom = createHeadroom(options.headroom ?? { target: 0 });
  const fitting = () => {
    const load = options.load;
    if (load?.utilization === undefined || load.windows === undefined) return Infinity;
    const now = clock.now();
    let loaded = 0;
    let settling = 0;
    for (const { talkingSince } of running.values()) {
      if (talkingSince === null) continue;
      if (now - talkingSince >= LOAD_SHOWS_AFTER_MS) loaded += 1;
      else settling += 1;
    }
    return headroom.allowance({
      loaded,
      coming: running.size - loaded,
      settling,
      utilization: load.utilization,
      window: load.windows,
    });
  };
  const allowance = () => Math.min(options.load?.allowance?.() ?? Infinity, fitting());
  const mayClaim = () => clear() && allowance() > 0;

  function settleIdle() {
    if (running.size > 0 || admission.busy > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  const ctx: CallContext = {
    store,
    runtime: options.runtime,
    carriers: options.carriers,
    speech: options.speech,
    ...(options.speechRegistry ? { speechRegistry: options.speechRegistry } : {}),
    recordings: options.recordings ?? null,
    clock,
    logger,
    node,
    writer: createCallWriter({ store, logger }),
    turnLog: createTurnLog({ store, clock, logger }),
    releaseSlot: createSlotReleaser({
      store,
      logger,
      node,
      // A release hands a freed slot to one waiting call: no more calls than before, so no pacing.
      mayAdmit: clear,
      onAdmitted: (workspace, admitted) => void admission.startAdmitted(workspace, admitted),
      // The locked admission sees the whole queue.
      onUnfilled: (workspace) => void admission.admit(workspace.id),
    }),
    afterCallWork: pLimit(options.afterCallConcurrency ?? 8),
    ...(options.onSlotReleased ? { onSlotReleased: options.onSlotReleased } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    admit: (workspaceId) => admission.admit(workspaceId),
    track(workspace, callId, run) {
      const controller = new AbortController();
      const done = run(controller.signal)
        .catch((err: unknown) => logger.error({ err, call_id: callId }, 'a call failed unexpectedly'))
        .finally(() => {
          running.delete(callId);
          void admission.admit(workspace.id);
          settleIdle();
        });
      running.set(callId, { controller, done, talkingSince: null });
    },
    talking(callId) {
      const call = running.get(callId);
      if (call && call.talkingSince === null) call.talkingSince = clock.now();
    },
  };

  const admission = createAdmission(ctx, {
    mayAdmit,
    mayClaim,
    claimLimit: allowance,
    claimed: (calls) => options.load?.claimed?.(calls),
    launch: (workspace, call, prepared) =>
      ctx.track(workspace, call.id, (signal) => runOutbound(ctx, workspace, call, prepared, signal)),
    settled: settleIdle,
  });

  // Calls arriving on a carrier are pushed here (inbound.ts).
  const inbound = options.inboundWebhook ? { webhook: options.inboundWebhook } : {};
  for (const [provider, carrier] of Object.entries(options.carriers))
    carrier.onIncoming?.((incoming) => receiveInbound(ctx, inbound, provider, incoming));

  const about = { publicUrl: options.publicUrl ?? '', wsMedia: 'ws' in options.carriers };
  const liveness = createLiveness(ctx, {
    about,
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.deadAfterMs ? { deadAfterMs: options.deadAfterMs } : {}),
    ...(options.onTakeover ? { onTakeover: options.onTakeover } : {}),
  });

  async function poll() {
    while (!loop.signal.aborted) {
      try {
        await liveness();
      } catch (err) {
        logger.error({ err }, 'the liveness check failed');
      }
      try {
        for (const workspaceId of await store.calls.workspacesWaiting()) await admission.admit(workspaceId);
      } catch (err) {
        logger.error({ err }, 'looking for waiting calls failed');
      }
      nap = new AbortController();
      const woken = AbortSignal.any([loop.signal, nap.signal]);
      await clock.sleep(options.pollIntervalMs ?? 1000, woken).catch(() => undefined);
    }
  }

  return {
    place: admission.place,
    admit: admission.admit,
    run: admission.startAdmitted,
    async start(signal) {
      if (options.runsCalls === false) return;
      signal?.addEventListener('abort', () => loop.abort(), { once: true });
      await store.nodes.heartbeat(node, about);
      await failInterrupted(ctx, node);
      await recoverLeftRecordings(ctx).catch((err: unknown) =>
        logger.warn({ err }, 'recordings left by a stop could not be looked for'),
      );
      void poll();
    },
    wake() {
      nap.abort();
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
      if (running.size === 0 && admission.busy === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    get running() {
      return running.size;
    },
    allowance: () => (clear() ? allowance() : 0),
  };
}
