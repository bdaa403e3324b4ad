import { Type, type Static } from '@sinclair/typebox';

// The post-call analysis object, exactly as the spec lists it (Events, "Analysis"): fifteen
// judged fields, each with a `<field>_feedback`, plus three aggregates. The aggregates are always
// computed here from the fields (`finalizeAnalysis`), never taken from a model's answer.

/** Fields judged true, false, not applicable, or null (could not be judged). */
export const JUDGED_FIELDS = [
  'persona',
  'style',
  'steps',
  'objections',
  'objection_not_defined',
  'knowledge',
  'appointment',
] as const;
/** Yes/no fields. */
export const BINARY_FIELDS = [
  'no_repetition',
  'call_completion',
  'answered_by_human',
  'opted_in',
  'no_opt_out',
] as const;
/** Fields graded true, partial or false. */
export const GRADED_FIELDS = ['goal', 'user_sentiment', 'agent_sentiment'] as const;

export type JudgedField = (typeof JUDGED_FIELDS)[number];
export type BinaryField = (typeof BINARY_FIELDS)[number];
export type GradedField = (typeof GRADED_FIELDS)[number];
export type AnalysisField = JudgedField | BinaryField | GradedField | 'call_summary';

/** Every field in payload order (call_summary last). */
export const ANALYSIS_FIELDS: readonly AnalysisField[] = [
  ...JUDGED_FIELDS,
  ...BINARY_FIELDS,
  ...GRADED_FIELDS,
  'call_summary',
];

/** Feedback of an ordinary field is cut to this many characters. */
export const FEEDBACK_MAX_CHARS = 500;
/** The spec's "summary under 500 characters". */
export const SUMMARY_MAX_CHARS = 499;

const Judged = Type.Union([
  Type.Literal(true),
  Type.Literal(false),
  Type.Literal('not_applicable'),
  Type.Null(),
]);
const Binary = Type.Boolean();
const Graded = Type.Union([Type.Literal(true), Type.Literal('partial'), Type.Literal(false)]);
const Feedback = Type.String({ maxLength: FEEDBACK_MAX_CHARS });

export type JudgedValue = Static<typeof Judged>;
export type GradedValue = Static<typeof Graded>;

/** The judged fields and their feedback: what a judge (model or heuristic) produces. */
export const AnalysisFieldsSchema = Type.Object(
  {
    persona: Judged,
    persona_feedback: Feedback,
    style: Judged,
    style_feedback: Feedback,
    steps: Judged,
    steps_feedback: Feedback,
    objections: Judged,
    objections_feedback: Feedback,
    objection_not_defined: Judged,
    objection_not_defined_feedback: Feedback,
    knowledge: Judged,
    knowledge_feedback: Feedback,
    appointment: Judged,
    appointment_feedback: Feedback,
    no_repetition: Binary,
    no_repetition_feedback: Feedback,
    call_completion: Binary,
    call_completion_feedback: Feedback,
    answered_by_human: Binary,
    answered_by_human_feedback: Feedback,
    opted_in: Binary,
    opted_in_feedback: Feedback,
    no_opt_out: Binary,
    no_opt_out_feedback: Feedback,
    goal: Graded,
    goal_feedback: Feedback,
    user_sentiment: Graded,
    user_sentiment_feedback: Feedback,
    agent_sentiment: Graded,
    agent_sentiment_feedback: Feedback,
    call_summary: Type.Literal(true),
    call_summary_feedback: Type.String({ maxLength: SUMMARY_MAX_CHARS }),
  },
  { additionalProperties: false },
);
export type AnalysisFields = Static<typeof AnalysisFieldsSchema>;

/** The whole analysis object of the post-call payload. */
export const AnalysisSchema = Type.Object(
  {
    ...AnalysisFieldsSchema.properties,
    judge_found_partial_or_error: Type.Boolean(),
    judge_found_full_error: Type.Boolean(),
    all_feedback: Type.String(),
  },
  { additionalProperties: false },
);
export type Analysis = Static<typeof AnalysisSchema>;

/** The feedback key of a field. */
export const feedbackKey = (field: AnalysisField) => `${field}_feedback` as const;

/** Whitespace collapsed; cut at a word boundary with an ellipsis when longer than `max`. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** Said when a field is false or partial and the judge gave no reason. */
const NO_REASON = 'No explanation was given.';

/**
 * Makes judged fields into the payload object: feedback cut to length, emptied where the spec
 * wants it empty (true, not applicable), filled where a false or partial result has none, and
 * the aggregates computed.
 */
export function finalizeAnalysis(fields: AnalysisFields): Analysis {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  let partialOrError = false;
  let fullError = false;
  for (const field of ANALYSIS_FIELDS) {
    const value = fields[field];
    const raw = fields[feedbackKey(field)];
    let feedback: string;
    if (field === 'call_summary') feedback = clip(raw, SUMMARY_MAX_CHARS);
    else if (value === true || value === 'not_applicable') feedback = '';
    else feedback = clip(raw, FEEDBACK_MAX_CHARS) || (value === null ? '' : NO_REASON);
    if (value === false || value === 'partial') {
      partialOrError = true;
      if (value === false) fullError = true;
      problems.push(`${field}: ${feedback}`);
    }
    out[field] = value;
    out[feedbackKey(field)] = feedback;
  }
  out.judge_found_partial_or_error = partialOrError;
  out.judge_found_full_error = fullError;
  out.all_feedback = problems.join('\n');
  return out as Analysis;
}
