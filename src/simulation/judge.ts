import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { formatTranscript } from '../conversation/index.ts';
import { LLMError, collectChat, type ChatMessage, type LLM, type ToolSpec } from '../providers/index.ts';
import { casePassed, heuristicVerdicts, type CriterionResult, type JudgeInput } from './judge-heuristic.ts';
import { normalize } from './text.ts';

// Deciding a simulation (issue 7, deliverable 4). A real model gives one verdict per success
// criterion through one required tool call; one retry with the problem stated; then the
// heuristic judge stands in, with `error` saying why. Whether the case passed is always computed
// here from the verdicts and `call_success_type`, never taken from the model.
// (docs/builtin-model.md, "Simulation judge").

export {
  casePassed,
  heuristicVerdicts,
  type CriterionResult,
  type JudgeInput,
  type JudgeTurn,
} from './judge-heuristic.ts';

export interface JudgeDeps {
  llm?: LLM | null;
  model?: string;
  signal?: AbortSignal;
}

export interface JudgeResult {
  passed: boolean;
  criteria_results: CriterionResult[];
  judge: 'llm' | 'heuristic';
  /** Why the model's verdicts were not used; absent when they were, or when no model was asked. */
  error?: string;
}

export const VERDICTS_TOOL = 'record_verdicts';
/** Model calls per judgement: the first answer and one retry. */
export const VERDICT_ATTEMPTS = 2;
export const REASON_MAX_CHARS = 500;

const TRANSCRIPT_MAX_CHARS = 24_000;
const PERSONA_MAX_CHARS = 4_000;

const usesModel = (llm: LLM | null | undefined): llm is LLM => !!llm && llm.name !== 'builtin';

const VerdictsSchema = Type.Object({
  verdicts: Type.Array(
    Type.Object({
      criterion: Type.String(),
      passed: Type.Boolean(),
      reason: Type.String({ minLength: 1 }),
    }),
  ),
});

export function verdictsToolSpec(criteria: readonly string[]): ToolSpec {
  return {
    name: VERDICTS_TOOL,
    description: 'Record one verdict per success criterion, in the order the criteria were given.',
    parameters: {
      type: 'object',
      properties: {
        verdicts: {
          type: 'array',
          minItems: criteria.length,
          maxItems: criteria.length,
          description: `Exactly ${criteria.length} verdicts: the first for criterion 1, the second for criterion 2, and so on.`,
          items: {
            type: 'object',
            properties: {
              criterion: { type: 'string', description: 'The criterion, copied as given.' },
              passed: { type: 'boolean', description: 'Whether the agent met this criterion.' },
              reason: {
                type: 'string',
                minLength: 1,
                maxLength: REASON_MAX_CHARS,
                description: 'One or two sentences citing what happened in the transcript.',
              },
            },
            required: ['criterion', 'passed', 'reason'],
            additionalProperties: false,
          },
        },
      },
      required: ['verdicts'],
      additionalProperties: false,
    },
  };
}

const SYSTEM = [
  'You judge a test of an AI voice agent. A simulated caller, playing the persona below, talked to the agent.',
  'Decide for each success criterion whether the agent met it, judging only from the transcript and the facts given.',
  `Answer only by calling the ${VERDICTS_TOOL} tool once, with exactly one verdict per criterion, in the order given,`,
  'each with the criterion copied, passed true or false, and a short reason that cites the transcript.',
  'A criterion the transcript gives no evidence for is not met.',
].join('\n');

const tail = (text: string, max: number) => (text.length <= max ? text : `[…]\n${text.slice(-max)}`);

export function verdictMessages(input: JudgeInput): ChatMessage[] {
  const ending = input.hitMaxTurns
    ? 'The conversation hit the turn limit and was stopped.'
    : input.endedBy
      ? `The conversation ended: ${input.endedBy}.`
      : 'The conversation was cut off.';
  const persona = input.prompt.trim() || '(none)';
  const transcript = formatTranscript(
    input.turns.map((t) => ({ speaker: t.speaker, text: t.text, at: 0 })),
    'chat',
  );
  const user = [
    '## The simulated caller (persona and goal)',
    persona.length > PERSONA_MAX_CHARS ? `${persona.slice(0, PERSONA_MAX_CHARS)}\n[…]` : persona,
    '## How it ended',
    ending,
    '## Success criteria',
    ...input.success_criteria.map((c, i) => `${i + 1}. ${c}`),
    '## Transcript (Agent = the agent under test, User = the simulated caller)',
    input.turns.length > 0 ? tail(transcript, TRANSCRIPT_MAX_CHARS) : '(empty)',
  ].join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
}

type Parsed = { ok: true; results: CriterionResult[] } | { ok: false; error: string };

const clipReason = (reason: string) => {
  const r = reason.replace(/\s+/g, ' ').trim();
  return r.length <= REASON_MAX_CHARS ? r : `${r.slice(0, REASON_MAX_CHARS - 1)}…`;
};

/**
 * Reads the tool arguments. Verdict i is criterion i: a count other than the criteria's, or a
 * verdict whose echoed text is another criterion's (the order was mixed up), is invalid. Anything
 * else the model adds (an overall `passed`...) is ignored.
 */
export function parseVerdicts(argumentsJson: string, criteria: readonly string[]): Parsed {
  let raw: unknown;
  try {
    raw = JSON.parse(argumentsJson);
  } catch {
    return { ok: false, error: 'the tool arguments are not JSON' };
  }
  if (!Value.Check(VerdictsSchema, raw)) {
    const errors = [...Value.Errors(VerdictsSchema, raw)]
      .slice(0, 3)
      .map((e) => `${e.path.slice(1) || '(root)'}: ${e.message}`);
    return { ok: false, error: `invalid verdicts: ${errors.join('; ')}` };
  }
  const { verdicts } = raw;
  if (verdicts.length !== criteria.length) {
    return {
      ok: false,
      error: `${verdicts.length} verdicts for ${criteria.length} criteria; give exactly one per criterion`,
    };
  }
  const keys = criteria.map(normalize);
  const results: CriterionResult[] = [];
  for (const [i, verdict] of verdicts.entries()) {
    const criterion = criteria[i] ?? '';
    const echoed = normalize(verdict.criterion);
    const other = keys.findIndex((k, j) => j !== i && k === echoed && k !== keys[i]);
    if (other >= 0)
      return { ok: false, error: `verdict ${i + 1} is for criterion ${other + 1}; keep the given order` };
    const reason = clipReason(verdict.reason);
    if (reason === '') return { ok: false, error: `verdict ${i + 1} has an empty reason` };
    results.push({ criterion, passed: verdict.passed, reason });
  }
  return { ok: true, results };
}

async function askJudge(
  llm: LLM,
  messages: ChatMessage[],
  criteria: readonly string[],
  deps: JudgeDeps,
): Promise<Parsed | { ok: false; error: string; aborted: true }> {
  try {
    const reply = await collectChat(
      llm.chat({
        ...(deps.model !== undefined ? { model: deps.model } : {}),
        messages,
        tools: [verdictsToolSpec(criteria)],
        toolChoice: 'required',
        temperature: 0,
        ...(deps.signal ? { signal: deps.signal } : {}),
      }),
    );
    if (reply.finishReason === 'aborted') return { ok: false, error: 'aborted', aborted: true };
    const call = reply.toolCalls.find((c) => c.name === VERDICTS_TOOL);
    if (!call) return { ok: false, error: `the model did not call ${VERDICTS_TOOL}` };
    return parseVerdicts(call.arguments, criteria);
  } catch (e) {
    if (deps.signal?.aborted) return { ok: false, error: 'aborted', aborted: true };
    const detail =
      e instanceof LLMError ? `${String(e.code)}: ${e.message}` : e instanceof Error ? e.message : String(e);
    return { ok: false, error: `model error (${detail})` };
  }
}

/** Decides a simulation: one verdict per criterion, and whether the case passed. Never throws. */
export async function judgeCase(input: JudgeInput, deps: JudgeDeps = {}): Promise<JudgeResult> {
  const criteria = input.success_criteria;
  const result = (
    criteria_results: CriterionResult[],
    judge: JudgeResult['judge'],
    error?: string,
  ): JudgeResult => ({
    passed: casePassed(criteria_results, input.call_success_type),
    criteria_results,
    judge,
    ...(error !== undefined ? { error } : {}),
  });
  const heuristic = () => heuristicVerdicts(input);
  // Nothing to ask a model about: a case without criteria does not pass.
  if (!usesModel(deps.llm) || criteria.length === 0) return result(heuristic(), 'heuristic');

  const base = verdictMessages(input);
  let messages = base;
  let error = 'no answer';
  for (let attempt = 1; attempt <= VERDICT_ATTEMPTS; attempt++) {
    if (deps.signal?.aborted) return result(heuristic(), 'heuristic', 'judging aborted');
    const answer = await askJudge(deps.llm, messages, criteria, deps);
    if (answer.ok) return result(answer.results, 'llm');
    if ('aborted' in answer) return result(heuristic(), 'heuristic', 'judging aborted');
    error = answer.error;
    messages = [
      ...base,
      {
        role: 'user',
        content:
          `Your previous answer could not be used (${error}). Call ${VERDICTS_TOOL} again with exactly ` +
          `${criteria.length} verdicts, one per criterion in the order given, each with a non-empty reason.`,
      },
    ];
  }
  return result(heuristic(), 'heuristic', `model judge failed after ${VERDICT_ATTEMPTS} attempts: ${error}`);
}
