import { DEFAULT_EVAL_CATEGORY, EVAL_CATEGORIES, type EvalCategory } from '../core/index.ts';
import type { ActionRecorder } from './recorder.ts';
import type { ActionToolSpec } from './types.ts';

// CUSTOM_EVAL: a question asked about a conversation once it is over (WIRE.md section 8; the
// published `{question: {identifier, text, category, expected_result}}`). It offers no tool
// during the conversation. After the end the runtime asks the model (see src/runtime/finish.ts)
// or, on the builtin model, applies the heuristic below; each verdict is one run on the action
// timeline whose `return_value` is `{identifier, category, result, reason}`.
//
// This file holds what needs no model: the typed question (parsed once from the stored config),
// the verdict tool offered to the model, the robust reading of its answer, the offline heuristic
// and the recording.

export const CUSTOM_EVAL_ACTION_TYPE = 'custom_eval_action_type';

// The categories are the stored configuration's (src/core/action-config.ts).
export { DEFAULT_EVAL_CATEGORY, EVAL_CATEGORIES, type EvalCategory };

/** The name of the one tool the model answers an evaluation with. */
export const EVALUATION_TOOL = 'record_evaluation';

export interface CustomEvalQuestion {
  identifier: string;
  text: string;
  category: EvalCategory;
  /** What the business expects (for pass_fail `true` or `false`); free text, optional. */
  expected_result?: string;
}

/** A verdict: the answer in the category's form, or null when there is none. */
export type EvalResult = boolean | number | string | null;

export interface EvalVerdict {
  result: EvalResult;
  reason: string;
}

const isCategory = (value: unknown): value is EvalCategory => EVAL_CATEGORIES.some((c) => c === value);

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The question of a stored CUSTOM_EVAL configuration; null when it is unusable (the API refuses
 * such a configuration, so this only guards rows written some other way).
 */
export function parseCustomEvalQuestion(config: Record<string, unknown>): CustomEvalQuestion | null {
  const q = config.question;
  if (!isObject(q)) return null;
  const { identifier, text, category, expected_result } = q;
  if (typeof identifier !== 'string' || identifier === '') return null;
  if (typeof text !== 'string' || text.trim() === '') return null;
  if (category !== undefined && !isCategory(category)) return null;
  return {
    identifier,
    text,
    category: category ?? DEFAULT_EVAL_CATEGORY,
    ...(typeof expected_result === 'string' && expected_result.trim() !== '' ? { expected_result } : {}),
  };
}

// ---- Asking a model ----------------------------------------------------------------------------

const RESULT_SCHEMAS: Record<EvalCategory, Record<string, unknown>> = {
  pass_fail: { type: 'boolean', description: 'true if the answer to the question is yes, false if no.' },
  numeric: {
    type: 'number',
    description:
      'The number that answers the question (a score from 1 to 10 unless the question asks for another quantity).',
  },
  likert_scale: {
    type: 'integer',
    minimum: 1,
    maximum: 5,
    description: '1 (strongly disagree / very poor) to 5 (strongly agree / excellent).',
  },
  descriptive: { type: 'string', description: 'A short answer in words (at most three sentences).' },
};

/** The tool the model answers with: `{result, reason}` with `result` in the category's form. */
export function evaluationToolSpec(question: CustomEvalQuestion): ActionToolSpec {
  return {
    name: EVALUATION_TOOL,
    description: 'Records the answer to the evaluation question about the conversation.',
    parameters: {
      type: 'object',
      properties: {
        result: RESULT_SCHEMAS[question.category],
        reason: { type: 'string', description: 'One sentence: what in the conversation supports it.' },
      },
      required: ['result', 'reason'],
      additionalProperties: false,
    },
  };
}

/** The instructions of the evaluation call. */
export function evaluationPrompt(question: CustomEvalQuestion): string {
  const form: Record<EvalCategory, string> = {
    pass_fail: 'true (yes) or false (no)',
    numeric: 'a number (a score from 1 to 10 unless the question asks for another quantity)',
    likert_scale: 'an integer from 1 (lowest) to 5 (highest)',
    descriptive: 'a short answer in words',
  };
  return (
    'You evaluate a finished conversation between an agent ("bot") and a person ("human"). ' +
    `Answer this question about it: ${question.text}\n` +
    `The answer must be ${form[question.category]}. Judge only from what the conversation says. ` +
    `Answer by calling ${EVALUATION_TOOL} once.`
  );
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', 'pass', 'passed', 'correct', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'fail', 'failed', 'incorrect', '0']);

/** A yes/no word (`true`, `Yes.`, `PASS`) as a boolean; null for anything else. */
export function booleanOf(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : null;
  if (typeof value !== 'string') return null;
  const word = value
    .trim()
    .toLowerCase()
    .replace(/^["'`]+|["'`.!]+$/g, '');
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return null;
}

function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const match = /^\s*["']?(-?\d+(?:\.\d+)?)(?:\s*(?:\/|out of)\s*\d+)?["']?\s*\.?\s*$/i.exec(value);
  return match ? Number(match[1]) : null;
}

/** A verdict in the category's form from a raw result; an error text when it has none. */
export function readResult(
  category: EvalCategory,
  raw: unknown,
): { ok: true; result: EvalResult } | { ok: false; error: string } {
  switch (category) {
    case 'pass_fail': {
      const b = booleanOf(raw);
      return b === null ? { ok: false, error: 'the result is not true or false' } : { ok: true, result: b };
    }
    case 'numeric': {
      const n = numberOf(raw);
      return n === null ? { ok: false, error: 'the result is not a number' } : { ok: true, result: n };
    }
    case 'likert_scale': {
      const n = numberOf(raw);
      return n !== null && Number.isInteger(n) && n >= 1 && n <= 5
        ? { ok: true, result: n }
        : { ok: false, error: 'the result is not an integer from 1 to 5' };
    }
    case 'descriptive': {
      const text = typeof raw === 'string' ? raw.trim() : '';
      return text === '' ? { ok: false, error: 'the result is empty' } : { ok: true, result: text };
    }
  }
}

/**
 * The model's answer as a verdict: the tool call's JSON arguments when it made one, otherwise its
 * text (a JSON object `{result, reason}`, possibly in a code fence, or the bare answer such as
 * `Yes`, `4`, `7/10`). An error text when neither holds a result of the category's form.
 */
export function parseVerdict(
  question: CustomEvalQuestion,
  answer: { toolArguments?: string; text: string },
): { ok: true; verdict: EvalVerdict } | { ok: false; error: string } {
  const candidates: unknown[] = [];
  if (answer.toolArguments !== undefined) candidates.push(parseJson(answer.toolArguments));
  const text = answer.text.trim();
  if (text !== '') {
    const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1] ?? text;
    const braces = /\{[\s\S]*\}/.exec(fenced)?.[0];
    if (braces !== undefined) candidates.push(parseJson(braces));
    candidates.push({ result: text });
  }
  let error = 'the model gave no answer';
  for (const candidate of candidates) {
    if (!isObject(candidate) || !('result' in candidate)) continue;
    const read = readResult(question.category, candidate.result);
    if (!read.ok) {
      error = read.error;
      continue;
    }
    const reason = typeof candidate.reason === 'string' ? candidate.reason.trim() : '';
    return { ok: true, verdict: { result: read.result, reason } };
  }
  return { ok: false, error };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// ---- The offline heuristic (builtin model) -----------------------------------------------------

// Words that say nothing about a conversation's content ("Did the agent ask the caller ...").
const STOP = new Set(
  (
    'about after again agent agents also answer asked asking asks because been before being bot call called ' +
    'caller callers calls conversation could customer customers does doing during each ever from have having ' +
    'human into lead leads made make mention mentioned mentions more most must person properly question ' +
    'really said same says should some such than that their them then there these they this those through ' +
    'true false user users very were what when where which while will with would your yes'
  ).split(' '),
);

/** Meaningful words: letters only, 4+ long, stop words left out, compared by their first 5 letters. */
function keyWords(text: string): string[] {
  const found = (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .match(/\p{L}+/gu) ?? []
  ).filter((w) => w.length >= 4 && !STOP.has(w));
  return [...new Set(found.map((w) => w.slice(0, 5)))];
}

/**
 * The builtin model's verdict, deterministic and without judgement (docs/api-notes.md, "Actions
 * in conversations"):
 * - pass_fail: the key words of `expected_result` (or of the question when the expected result is
 *   only a yes/no word or absent) are looked for in the transcript; true when at least half of
 *   them appear, false otherwise; null when there is no key word to look for;
 * - numeric and likert_scale: null, "not evaluated offline";
 * - descriptive: the person's line sharing the most key words with the question (at most 300
 *   characters); null when none shares one.
 */
export function heuristicVerdict(question: CustomEvalQuestion, transcript: string): EvalVerdict {
  if (question.category === 'numeric' || question.category === 'likert_scale') {
    return { result: null, reason: 'not evaluated offline: the builtin model gives no scores' };
  }
  const expected = question.expected_result ?? '';
  const source = booleanOf(expected) === null && keyWords(expected).length > 0 ? expected : question.text;
  const wanted = keyWords(source);
  if (wanted.length === 0) {
    return { result: null, reason: 'not evaluated offline: the question has no key words to look for' };
  }
  if (question.category === 'pass_fail') {
    const present = new Set(keyWords(transcript));
    const found = wanted.filter((w) => present.has(w));
    const pass = found.length * 2 >= wanted.length && found.length > 0;
    return {
      result: pass,
      reason: `offline heuristic: ${found.length} of ${wanted.length} key words found in the transcript`,
    };
  }
  let best: { line: string; score: number } | null = null;
  for (const line of transcript.split('\n')) {
    const m = /^(?:human|user):\s*(.*)$/i.exec(line.trim());
    const said = m?.[1]?.trim();
    if (!said) continue;
    const words = new Set(keyWords(said));
    const score = wanted.filter((w) => words.has(w)).length;
    if (score > 0 && (best === null || score > best.score)) best = { line: said, score };
  }
  if (best === null) {
    return { result: null, reason: "offline heuristic: no line of the person's matches the question" };
  }
  const extract = best.line.length > 300 ? `${best.line.slice(0, 297)}...` : best.line;
  return { result: extract, reason: "offline heuristic: the person's line closest to the question" };
}

// ---- Recording ---------------------------------------------------------------------------------

export interface EvaluationRecord {
  recorder: ActionRecorder;
  action_id: string;
  question: CustomEvalQuestion;
}

/** Starts the evaluation's run on the timeline; finish it with `succeedEvaluation`/`fail`. */
export function startEvaluation(record: EvaluationRecord) {
  const { question } = record;
  return record.recorder.start({
    name: question.identifier,
    action_type: CUSTOM_EVAL_ACTION_TYPE,
    action_id: record.action_id,
    description: question.text,
    parameters_hard_coded: { question: { ...question } },
    real_time_action: false,
  });
}

/** The `return_value` of an evaluation run. */
export function evaluationValue(question: CustomEvalQuestion, verdict: EvalVerdict) {
  return {
    identifier: question.identifier,
    category: question.category,
    result: verdict.result,
    reason: verdict.reason,
  };
}
