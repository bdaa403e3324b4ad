import type { ChatMessage, ToolSpec } from '../../providers/index.ts';
import { formatTranscript } from '../transcript.ts';
import { endReasons } from '../endings.ts';
import type { AnalysisInput } from './input.ts';
import {
  ANALYSIS_FIELDS,
  BINARY_FIELDS,
  FEEDBACK_MAX_CHARS,
  GRADED_FIELDS,
  JUDGED_FIELDS,
  SUMMARY_MAX_CHARS,
  type AnalysisField,
} from './schema.ts';

// What the model judge is asked: a system prompt describing every field and its values, the call
// as a user message, and one tool whose arguments are the analysis (structured output through a
// required tool call, which every OpenAI-compatible server supports, unlike `response_format`).

export const ANALYSIS_TOOL = 'record_analysis';

const MEANING: Record<AnalysisField, string> = {
  persona: 'the agent kept the persona (name, role, organisation) the prompt gives it',
  style: 'the agent spoke in the tone and style the prompt asks for, briefly, fit for a phone call',
  steps: 'the agent followed the steps or script of the prompt, in order',
  objections: 'the agent handled the objections the person raised',
  objection_not_defined: 'the agent handled well any objection the prompt does not say how to handle',
  knowledge: 'what the agent stated from the knowledge passages was correct and relevant',
  appointment: 'an appointment was booked when the conversation called for one',
  no_repetition: 'the agent did not repeat itself needlessly',
  call_completion: 'the conversation reached a natural end (not cut off, voicemail or time limit)',
  answered_by_human: 'a person, not a machine or voicemail, answered',
  opted_in: 'the person agreed to what was offered or to further contact',
  no_opt_out: 'the person did not ask to stop being contacted',
  goal: 'the conversation achieved the goal of the prompt',
  user_sentiment: 'the person was positive or satisfied',
  agent_sentiment: 'the agent was polite, warm and professional',
  call_summary: 'always true',
};

const VALUES = (field: AnalysisField): string =>
  (JUDGED_FIELDS as readonly string[]).includes(field)
    ? 'true, false, "not_applicable" (nothing to judge), or null (cannot tell)'
    : (BINARY_FIELDS as readonly string[]).includes(field)
      ? 'true or false'
      : (GRADED_FIELDS as readonly string[]).includes(field)
        ? 'true, "partial" or false'
        : 'true';

const SYSTEM = [
  'You review finished conversations between an AI voice agent and a person, and judge how the agent did.',
  `Answer only by calling the ${ANALYSIS_TOOL} tool once, with every field set.`,
  'Fields (value: meaning; allowed values):',
  ...ANALYSIS_FIELDS.map((f) => `- ${f}: ${MEANING[f]}; ${VALUES(f)}`),
  'Each field has a <field>_feedback string. Leave it empty when the value is true or "not_applicable";',
  `otherwise explain the result in one or two sentences (at most ${FEEDBACK_MAX_CHARS} characters).`,
  `call_summary_feedback is a neutral summary of the call in under ${SUMMARY_MAX_CHARS + 1} characters.`,
  'Judge only from the transcript and the facts given. Do not invent details.',
].join('\n');

/** The tool's JSON Schema: plain JSON (enums), which models follow better than anyOf. */
export function analysisToolSpec(): ToolSpec {
  const properties: Record<string, unknown> = {};
  for (const field of ANALYSIS_FIELDS) {
    const values = (JUDGED_FIELDS as readonly string[]).includes(field)
      ? [true, false, 'not_applicable', null]
      : (BINARY_FIELDS as readonly string[]).includes(field)
        ? [true, false]
        : (GRADED_FIELDS as readonly string[]).includes(field)
          ? [true, 'partial', false]
          : [true];
    properties[field] = { enum: values, description: MEANING[field] };
    properties[`${field}_feedback`] = {
      type: 'string',
      maxLength: field === 'call_summary' ? SUMMARY_MAX_CHARS : FEEDBACK_MAX_CHARS,
    };
  }
  return {
    name: ANALYSIS_TOOL,
    description: 'Record the analysis of the conversation.',
    parameters: {
      type: 'object',
      properties,
      required: Object.keys(properties),
      additionalProperties: false,
    },
  };
}

const PROMPT_MAX_CHARS = 8_000;
const TRANSCRIPT_MAX_CHARS = 24_000;

/** Keeps the end of a long transcript (where outcomes are), marking the cut. */
const tail = (text: string, max: number) => (text.length <= max ? text : `[…]\n${text.slice(-max)}`);
const head = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}\n[…]`);

export function judgeMessages(input: AnalysisInput): ChatMessage[] {
  const reasons = endReasons(input.agent).map((r) => r.reason);
  const actions = (input.actions ?? []).map(
    (a) =>
      `- ${a.name} (${a.action_type}): ${a.success ? 'succeeded' : `failed${a.error_message ? `: ${a.error_message}` : ''}`}`,
  );
  const collected = Object.entries(input.collectedVariables ?? {})
    .filter(([, v]) => v.collected)
    .map(([k, v]) => `- ${k} = ${JSON.stringify(v.value)}`);
  const passages = (input.knowledgePassages ?? []).map((p) => `- ${head(p, 600)}`);
  const turns = input.turns.map((t) => ({ speaker: t.speaker, text: t.text, at: 0 }));
  const call = [
    '## Agent prompt',
    head(input.agent.prompt?.trim() || '(none)', PROMPT_MAX_CHARS),
    '## Agent configuration',
    `Greeting: ${input.agent.greeting_message?.trim() || '(none)'}`,
    `End-call reasons: ${reasons.length > 0 ? reasons.join('; ') : '(none)'}`,
    '## Call facts',
    `Answered by: ${input.answeredBy ?? 'unknown'}`,
    `End-call reason: ${input.endCallReason ?? 'unknown'}${input.customEndCallReason ? ` (${input.customEndCallReason})` : ''}`,
    `Actions run:${actions.length > 0 ? `\n${actions.join('\n')}` : ' none'}`,
    `Variables collected:${collected.length > 0 ? `\n${collected.join('\n')}` : ' none'}`,
    `Knowledge passages given to the agent:${passages.length > 0 ? `\n${passages.slice(0, 10).join('\n')}` : ' none'}`,
    '## Transcript (bot = agent, human = person)',
    turns.length > 0 ? tail(formatTranscript(turns, 'voice'), TRANSCRIPT_MAX_CHARS) : '(empty)',
  ].join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: call },
  ];
}
