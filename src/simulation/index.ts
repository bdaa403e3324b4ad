export {
  CASE_TOOL,
  GENERATION_ATTEMPTS,
  MAX_CASES,
  MAX_CRITERIA,
  SIMULATION_TEST_KINDS,
  generateCases,
  offlineCases,
  type GeneratedCase,
  type GenerationAction,
  type GenerationAgent,
  type GenerationDeps,
  type GenerationInput,
  type SimulationTestKind,
} from './generate.ts';
export {
  REASON_MAX_CHARS,
  VERDICTS_TOOL,
  VERDICT_ATTEMPTS,
  casePassed,
  heuristicVerdicts,
  judgeCase,
  type CriterionResult,
  type JudgeDeps,
  type JudgeInput,
  type JudgeResult,
  type JudgeTurn,
} from './judge.ts';
export { simulateConversation, type SimulatedConversation } from './converse.ts';
export { DEFAULT_SIMULATION_CONCURRENCY, runSession, type RunSessionOptions } from './session.ts';
export { standInCalendar, standInCallControl, standInHttp, standInMessaging } from './stand-ins.ts';
export { createSimulationService, type ActionsMode, type SimulationService } from './service.ts';
export {
  createSimulationLibrary,
  unprocessable,
  type CaseFields,
  type NewCase,
  type NewSuite,
  type SimulationLibrary,
  type SuiteWithCases,
} from './library.ts';
