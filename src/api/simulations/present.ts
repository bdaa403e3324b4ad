import { toIso } from '../../core/index.ts';
import type {
  Repositories,
  SimulationCase,
  SimulationRun,
  SimulationSession,
  SimulationSuite,
} from '../../store/index.ts';

// Simulation records as reads return them (WIRE.md section 7), with the fields the published API
// adds around Parley's own: a case's `base_agent`, a suite's `agent` and `case_summaries`, and a
// simulation's case, agent and verdict fields.

/** What the records show of an agent a case or suite names. */
export interface AgentBrief {
  id: string;
  name: string;
  type: string;
  updatedAt: number;
  /** Its first attached number, else its own `phone_number`, else null. */
  phoneNumber: string | null;
}

export type AgentBriefs = ReadonlyMap<string, AgentBrief>;

/** The agents among `ids` that still exist in the workspace (one query per distinct agent). */
export async function agentBriefs(
  repos: Pick<Repositories, 'agents' | 'phoneNumbers'>,
  workspaceId: string,
  ids: Iterable<string | null>,
): Promise<Map<string, AgentBrief>> {
  const wanted = [...new Set([...ids].filter((id): id is string => id !== null))];
  const agents = (await Promise.all(wanted.map((id) => repos.agents.get(workspaceId, id)))).filter(
    (a) => a !== null,
  );
  const numbers = await repos.phoneNumbers.attachedTo(
    workspaceId,
    agents.map((a) => a.id),
  );
  return new Map(
    agents.map((a) => {
      const phoneNumber = numbers.get(a.id)?.[0]?.number ?? (a.spec.phone_number || null);
      return [a.id, { id: a.id, name: a.name, type: a.type, updatedAt: a.updatedAt, phoneNumber }];
    }),
  );
}

function presentBaseAgent(agent: AgentBrief | undefined) {
  if (!agent) return null;
  return {
    model_id: agent.id,
    agent_name: agent.name,
    agent_type: agent.type,
    // Parley's voices are not split by engine; the published field is a string.
    voice_engine_type: '',
    phone_number: agent.phoneNumber,
    updated_at: toIso(agent.updatedAt),
    image_url: null,
  };
}

export function presentCase(c: SimulationCase, agents: AgentBriefs) {
  return {
    simulation_case_id: c.id,
    workspace_id: c.workspaceId,
    suite_id: c.suiteId,
    name: c.name,
    prompt: c.prompt,
    type: c.type,
    success_criteria: c.successCriteria,
    call_success_type: c.callSuccessType,
    base_agent_id: c.baseAgentId,
    base_agent: presentBaseAgent(c.baseAgentId === null ? undefined : agents.get(c.baseAgentId)),
    created_at: toIso(c.createdAt),
    updated_at: toIso(c.updatedAt),
  };
}

export function presentSuite(s: SimulationSuite, cases: readonly SimulationCase[], agents: AgentBriefs) {
  return {
    id: s.id,
    name: s.name,
    model_id: s.modelId,
    workspace_id: s.workspaceId,
    language: s.language,
    cases: cases.map((c) => presentCase(c, agents)),
    case_summaries: cases.map((c) => ({ simulation_case_id: c.id, name: c.name })),
    // A suite outlives its agent: then the name is empty.
    agent: { id: s.modelId, name: agents.get(s.modelId)?.name ?? '', avatar: null },
    created_at: toIso(s.createdAt),
    updated_at: toIso(s.updatedAt),
  };
}

/** The transcript (`bot: …` / `human: …`, one line per turn) as timeline items; null when empty. */
function timelineOf(transcript: string) {
  if (transcript === '') return null;
  return transcript.split('\n').map((line) => {
    const speaker = /^(bot|human): /.exec(line);
    return {
      sender_type: speaker ? (speaker[1] === 'bot' ? 'agent' : 'user') : null,
      value: speaker ? line.slice(speaker[0].length) : line,
      type: 'message',
      timestamp_datetime: null,
      timestamp: null,
    };
  });
}

/** What a simulation record shows of its session, case and agent. */
export interface RunContext {
  session: SimulationSession | null;
  testCase: SimulationCase | undefined;
  agentName: string | null;
}

/** A simulation as read: one that has not started yet shows as in progress (it is queued). */
export function presentRun(run: SimulationRun, context: RunContext) {
  const { session, testCase } = context;
  return {
    simulation_id: run.id,
    simulation_session_id: run.sessionId,
    simulation_case_id: run.caseId,
    status: run.status === 'pending' ? ('in-progress' as const) : run.status,
    passed: run.passed,
    criteria_results: run.criteriaResults,
    transcript: run.transcript,
    turns: run.turns,
    error: run.error,
    // The published record's fields. The case's fields are null once the case is deleted.
    simulation_case_name: testCase?.name ?? null,
    simulation_case_prompt: testCase?.prompt ?? null,
    success_criteria: testCase?.successCriteria ?? null,
    call_success_type: testCase?.callSuccessType ?? null,
    target_agent_id: session?.modelId ?? '',
    agent_name: context.agentName,
    agent_avatar_url: null,
    // Simulations are text conversations run inside Parley: no persona agent, no phone call.
    persona_agent_id: null,
    persona_phone_number: null,
    target_phone_number: null,
    target_call_id: null,
    recording_url: null,
    // Those of a simulation started alone (POST /simulations); a suite's execution has none.
    custom_variables: run.customVariables,
    workspace_id: run.workspaceId,
    created_at: toIso(run.createdAt),
    updated_at: toIso(run.updatedAt),
    error_info: run.error === null ? null : { message: run.error, code: 500, type: 'simulation_failed' },
    timeline: timelineOf(run.transcript),
    success_criteria_analysis:
      run.passed === null
        ? null
        : {
            success: run.passed,
            evaluations: run.criteriaResults.map((v) => ({ success: v.passed, reasoning: v.reason })),
          },
  };
}

export function presentSession(
  session: SimulationSession,
  runs: readonly SimulationRun[],
  cases: ReadonlyMap<string, SimulationCase>,
  agentName: string | null,
) {
  return {
    simulation_session_id: session.id,
    suite_id: session.suiteId,
    model_id: session.modelId,
    status: session.status === 'completed' ? ('completed' as const) : ('in-progress' as const),
    max_turns: session.maxTurns,
    simulations: runs.map((run) => presentRun(run, { session, testCase: cases.get(run.caseId), agentName })),
    total_simulations: session.total,
    completed_simulations: session.completed,
    failed_simulations: session.failed,
    pending_simulations: session.total - session.completed - session.failed,
    created_at: toIso(session.createdAt),
  };
}
