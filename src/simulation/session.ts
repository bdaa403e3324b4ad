import type { Clock, Logger } from '../core/index.ts';
import { createSimulatedPerson } from '../conversation/index.ts';
import type { ModelRouter } from '../providers/index.ts';
import type { AgentRuntime } from '../runtime/index.ts';
import type { Agent, SimulationCase, SimulationRun, Store, Workspace } from '../store/index.ts';
import type { CallControlPort } from '../actions/index.ts';
import { simulateConversation } from './converse.ts';
import { judgeCase } from './judge.ts';

// Runs a session in the background: every case of the suite as one simulation, at most
// `concurrency` at a time. Each simulation: a simulated caller playing the case's prompt talks
// with the agent (the same runtime as calls: its prompt, actions and knowledge) for up to
// `maxTurns` caller turns; then the judge decides each success criterion, and `call_success_type`
// the case. A simulation that cannot run is `failed` with its error; the others go on.

export interface RunSessionOptions {
  store: Store;
  runtime: AgentRuntime;
  models: ModelRouter;
  clock: Clock;
  logger: Logger;
  workspace: Workspace;
  agent: Agent;
  runs: readonly SimulationRun[];
  cases: ReadonlyMap<string, SimulationCase>;
  maxTurns: number;
  /** Transfers during the simulation (recorded: the human answers). */
  callControl?: CallControlPort;
  concurrency?: number;
  signal?: AbortSignal;
}

export const DEFAULT_SIMULATION_CONCURRENCY = 4;

async function runOne(options: RunSessionOptions, run: SimulationRun): Promise<void> {
  const { store, runtime, models, workspace, agent } = options;
  const testCase = options.cases.get(run.caseId);
  if (!testCase) {
    await store.simulationRuns.finishRun(run.id, {
      status: 'failed',
      passed: null,
      criteriaResults: [],
      transcript: '',
      turns: 0,
      error: 'the case was deleted before it ran',
    });
    return;
  }
  await store.simulationRuns.startRun(run.id);
  const conversation = await runtime.open({
    conversationId: run.id,
    agent,
    // The agent's live version (the draft while it was never published).
    agentVersionId: agent.liveVersionId,
    workspace,
    // A simulation started alone may carry custom variables for the prompt's placeholders.
    variables: run.customVariables ?? {},
    style: 'voice',
    ...(options.callControl ? { callControl: options.callControl } : {}),
  });
  const { llm, model } = models.route(undefined, workspace.plan);
  const caller = createSimulatedPerson({
    llm,
    ...(model ? { model } : {}),
    role: 'caller',
    persona: { prompt: testCase.prompt },
    // The caller outlasts the turn limit, so a conversation that goes on is cut by max_turns.
    maxTurns: options.maxTurns + 1,
    seed: run.id,
  });
  const talk = await simulateConversation({
    session: conversation.session,
    caller,
    maxTurns: options.maxTurns,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const verdict = await judgeCase(
    {
      prompt: testCase.prompt,
      success_criteria: testCase.successCriteria,
      call_success_type: testCase.callSuccessType,
      turns: talk.turns,
      endedBy: talk.endedBy,
      hitMaxTurns: talk.hitMaxTurns,
    },
    {
      llm: conversation.model.llm,
      ...(conversation.model.model ? { model: conversation.model.model } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  await store.simulationRuns.finishRun(run.id, {
    status: 'completed',
    passed: verdict.passed,
    criteriaResults: verdict.criteria_results,
    transcript: talk.transcript,
    turns: talk.userTurns,
    error: null,
  });
}

export async function runSession(options: RunSessionOptions): Promise<void> {
  const queue = [...options.runs];
  const workers = Array.from(
    { length: Math.max(1, options.concurrency ?? DEFAULT_SIMULATION_CONCURRENCY) },
    async () => {
      for (let run = queue.shift(); run; run = queue.shift()) {
        try {
          if (options.signal?.aborted) throw new Error('the server stopped before the simulation ended');
          await runOne(options, run);
          if (options.signal?.aborted) throw new Error('the server stopped before the simulation ended');
        } catch (err) {
          options.logger.warn({ err, simulation_id: run.id }, 'a simulation failed');
          await options.store.simulationRuns
            .finishRun(run.id, {
              status: 'failed',
              passed: null,
              criteriaResults: [],
              transcript: '',
              turns: 0,
              error: err instanceof Error ? err.message : String(err),
            })
            .catch(() => undefined);
        }
      }
    },
  );
  await Promise.all(workers);
}
