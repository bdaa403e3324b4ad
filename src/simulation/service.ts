import type { Clock, Logger, VariableMap } from '../core/index.ts';
import type { ModelRouter } from '../providers/index.ts';
import { createAgentRuntime, type AgentRuntime } from '../runtime/index.ts';
import type {
  Agent,
  SimulationCase,
  SimulationRun,
  SimulationSession,
  SimulationSuite,
  Store,
  Workspace,
} from '../store/index.ts';
import { runSession } from './session.ts';
import { standInCalendar, standInCallControl, standInHttp, standInMessaging } from './stand-ins.ts';

// Executing suites: a session is stored with one pending simulation per case, answered at once,
// and run in the background. `actions` chooses per session whether the agent's actions reach
// their real systems (`live`: the same runtime as calls) or recorded stand-ins (`recorded`, the
// default: nothing leaves Parley; see stand-ins.ts). `run` does the same for one case alone, in
// a session of its own or added to an existing one.

export type ActionsMode = 'recorded' | 'live';

export interface SimulationService {
  execute(
    workspace: Workspace,
    suite: SimulationSuite,
    agent: Agent,
    options: { maxTurns: number; actions: ActionsMode },
  ): Promise<SimulationSession>;
  /**
   * Runs one case on `agent` in the background: in a new session of no suite, or added to the
   * workspace's session `sessionId` (null when there is no such session).
   */
  run(
    workspace: Workspace,
    testCase: SimulationCase,
    agent: Agent,
    options: {
      sessionId?: string;
      maxTurns: number;
      actions: ActionsMode;
      customVariables?: VariableMap | null;
    },
  ): Promise<{ session: SimulationSession; run: SimulationRun } | null>;
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

  /** Runs `runs` of `session` in the background (tracked for `idle` and `stop`). */
  function start(
    workspace: Workspace,
    agent: Agent,
    session: SimulationSession,
    runs: readonly SimulationRun[],
    cases: readonly SimulationCase[],
    actions: ActionsMode,
  ): void {
    const job = runSession({
      store,
      runtime: actions === 'live' ? options.runtime : recorded,
      models,
      clock,
      logger,
      workspace,
      agent,
      runs,
      cases: new Map(cases.map((c) => [c.id, c])),
      maxTurns: session.maxTurns,
      ...(actions === 'recorded' ? { callControl: standInCallControl } : {}),
      ...(options.concurrency ? { concurrency: options.concurrency } : {}),
      signal: stopping.signal,
    })
      .catch((err: unknown) => logger.error({ err, session_id: session.id }, 'a simulation session failed'))
      .finally(() => running.delete(job));
    running.add(job);
  }

  return {
    async execute(workspace, suite, agent, run) {
      const cases = await store.simulations.casesOfSuite(workspace.id, suite.id);
      const { session, runs } = await store.simulationRuns.createSession(workspace.id, {
        suiteId: suite.id,
        modelId: agent.id,
        maxTurns: run.maxTurns,
        caseIds: cases.map((c) => c.id),
      });
      start(workspace, agent, session, runs, cases, run.actions);
      return session;
    },
    async run(workspace, testCase, agent, single) {
      const customVariables = single.customVariables ?? null;
      let made: { session: SimulationSession; run: SimulationRun } | null;
      if (single.sessionId !== undefined) {
        made = await store.simulationRuns.addRun(workspace.id, single.sessionId, {
          caseId: testCase.id,
          customVariables,
        });
      } else {
        const { session, runs } = await store.simulationRuns.createSession(workspace.id, {
          suiteId: '',
          modelId: agent.id,
          maxTurns: single.maxTurns,
          caseIds: [testCase.id],
          customVariables,
        });
        made = { session, run: runs[0]! };
      }
      if (made) start(workspace, agent, made.session, [made.run], [testCase], single.actions);
      return made;
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
