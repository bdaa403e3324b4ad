import type { Clock, Logger } from '../core/index.ts';
import type { ModelRouter } from '../providers/index.ts';
import { createAgentRuntime, type AgentRuntime } from '../runtime/index.ts';
import type { Agent, SimulationSession, SimulationSuite, Store, Workspace } from '../store/index.ts';
import { runSession } from './session.ts';
import { standInCalendar, standInCallControl, standInHttp, standInMessaging } from './stand-ins.ts';

// Executing suites: a session is stored with one pending simulation per case, answered at once,
// and run in the background. `actions` chooses per session whether the agent's actions reach
// their real systems (`live`: the same runtime as calls) or recorded stand-ins (`recorded`, the
// default: nothing leaves Parley; see stand-ins.ts).

export type ActionsMode = 'recorded' | 'live';

export interface SimulationService {
  execute(
    workspace: Workspace,
    suite: SimulationSuite,
    agent: Agent,
    options: { maxTurns: number; actions: ActionsMode },
  ): Promise<SimulationSession>;
  /** Resolves when no session runs in this process (tests). */
  idle(): Promise<void>;
  /** Stops the sessions running here: their unfinished simulations fail, saying so. */
  stop(): Promise<void>;
}

export function createSimulationService(options: {
  store: Store;
  /** The runtime of calls and chats (`live`). */
  runtime: AgentRuntime;
  models: ModelRouter;
  clock: Clock;
  logger: Logger;
  concurrency?: number;
}): SimulationService {
  const { store, models, clock, logger } = options;
  const recorded = createAgentRuntime({
    repos: store,
    models,
    clock,
    http: standInHttp,
    messagingFor: () => standInMessaging,
    calendars: () => standInCalendar,
  });
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();

  return {
    async execute(workspace, suite, agent, run) {
      const cases = await store.simulations.casesOfSuite(workspace.id, suite.id);
      const { session, runs } = await store.simulationRuns.createSession(workspace.id, {
        suiteId: suite.id,
        modelId: agent.id,
        maxTurns: run.maxTurns,
        caseIds: cases.map((c) => c.id),
      });
      const job = runSession({
        store,
        runtime: run.actions === 'live' ? options.runtime : recorded,
        models,
        clock,
        logger,
        workspace,
        agent,
        runs,
        cases: new Map(cases.map((c) => [c.id, c])),
        maxTurns: run.maxTurns,
        ...(run.actions === 'recorded' ? { callControl: standInCallControl } : {}),
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        signal: stopping.signal,
      })
        .catch((err: unknown) => logger.error({ err, session_id: session.id }, 'a simulation session failed'))
        .finally(() => running.delete(job));
      running.add(job);
      return session;
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    async stop() {
      stopping.abort();
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
