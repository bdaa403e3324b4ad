import { Value } from '@sinclair/typebox/value';
import {
  ANALYSIS_FIELDS,
  AnalysisFieldsSchema,
  FEEDBACK_MAX_CHARS,
  SUMMARY_MAX_CHARS,
  clip,
  feedbackKey,
  type AnalysisFields,
} from './schema.ts';

// Reading the model judge's tool arguments. Spelling variants models commonly produce ("true" as
// a string, "N/A") are mended and over-long feedback is cut; anything else that does not fit the
// schema is an invalid answer (the caller retries, then falls back to the heuristic).

export type ParsedJudgement = { ok: true; fields: AnalysisFields } | { ok: false; error: string };

function mend(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === 'null') return null;
  if (v === 'partial') return 'partial';
  if (v === 'n/a' || v === 'na' || v === 'not applicable' || v === 'not_applicable') return 'not_applicable';
  return value;
}

export function parseJudgement(argumentsJson: string): ParsedJudgement {
  let raw: unknown;
  try {
    raw = JSON.parse(argumentsJson);
  } catch {
    return { ok: false, error: 'the tool arguments are not JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, error: 'the tool arguments are not a JSON object' };
  }
  const given = raw as Record<string, unknown>;
  // Only the known fields are taken: a model's own aggregates or extra keys are dropped.
  const candidate: Record<string, unknown> = {};
  for (const field of ANALYSIS_FIELDS) {
    const key = feedbackKey(field);
    candidate[field] = field === 'call_summary' ? true : mend(given[field]);
    const feedback = given[key] ?? '';
    candidate[key] =
      typeof feedback === 'string'
        ? clip(feedback, field === 'call_summary' ? SUMMARY_MAX_CHARS : FEEDBACK_MAX_CHARS)
        : feedback;
  }
  if (Value.Check(AnalysisFieldsSchema, candidate)) return { ok: true, fields: candidate };
  const errors = [...Value.Errors(AnalysisFieldsSchema, candidate)]
    .slice(0, 3)
    .map((e) => `${e.path.slice(1) || '(root)'}: ${e.message}`);
  return { ok: false, error: `invalid analysis: ${errors.join('; ')}` };
}
