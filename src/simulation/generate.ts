import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { LLMError, collectChat, type ChatMessage, type LLM, type ToolSpec } from '../providers/index.ts';
import {
  CASE_NAME_MAX_CHARS,
  MAX_CRITERIA,
  casePlan,
  clampCount,
  uniqueName,
  type CaseSlot,
  type GeneratedCase,
  type GenerationAction,
  type GenerationInput,
} from './offline-cases.ts';
import { clip } from './text.ts';

// Test-case generation for an agent (issue 7, deliverable 3). The plan (offline-cases.ts) lists
// one slot per case: explicit scenarios first, then the requested test kinds, then cases derived
// from the agent's configuration. A real model writes each slot's case through one required tool
// call (one retry with the problem stated); a slot the model fails twice gets the offline
// generator's case. The builtin model, or no model, gives the offline cases directly
// (docs/builtin-model.md, "Simulation case generation"). Cases are yielded one at a time, so a
// caller can stream each as soon as it is made.

export {
  MAX_CASES,
  MAX_CRITERIA,
  SIMULATION_TEST_KINDS,
  offlineCases,
  type GeneratedCase,
  type GenerationAction,
  type GenerationAgent,
  type GenerationInput,
  type SimulationTestKind,
} from './offline-cases.ts';

export interface GenerationDeps {
  llm?: LLM | null;
  model?: string;
  signal?: AbortSignal;
}

export const CASE_TOOL = 'record_test_case';
/** Model calls per case: the first answer and one retry. */
export const GENERATION_ATTEMPTS = 2;

const PROMPT_MAX_CHARS = 6_000;

const usesModel = (llm: LLM | null | undefined): llm is LLM => !!llm && llm.name !== 'builtin';

const CaseSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: CASE_NAME_MAX_CHARS }),
  prompt: Type.String({ minLength: 1 }),
  success_criteria: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_CRITERIA }),
  call_success_type: Type.Union([Type.Literal('all'), Type.Literal('any')]),
});

export function caseToolSpec(): ToolSpec {
  return {
    name: CASE_TOOL,
    description: 'Record one test case for the voice agent.',
    parameters: {
      type: 'object',
      properties: {
        name: {
          type: 'string',
          maxLength: CASE_NAME_MAX_CHARS,
          description: 'A short, unique title for the case (a few words).',
        },
        prompt: {
          type: 'string',
          description:
            "Instructions for the simulated caller, written to them ('You are ...'): who they are, " +
            'their goal, their manner, and the facts they give when asked.',
        },
        success_criteria: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_CRITERIA,
          items: { type: 'string' },
          description:
            'What the agent must do, each one sentence a judge can check from the transcript alone ' +
            "(e.g. 'The agent asks for the caller's email address').",
        },
        call_success_type: {
          type: 'string',
          enum: ['all', 'any'],
          description: "'all': every criterion must pass; 'any': one is enough.",
        },
      },
      required: ['name', 'prompt', 'success_criteria', 'call_success_type'],
      additionalProperties: false,
    },
  };
}

const SYSTEM = [
  'You write test cases for an AI voice agent. In each test a simulated caller phones the agent,',
  'and a judge then decides from the transcript whether the agent met the success criteria.',
  `Answer only by calling the ${CASE_TOOL} tool once.`,
  '- prompt: the simulated caller\'s persona and goal, addressed to them ("You are ..."), with the',
  '  manner they speak in and any facts they give when asked (name, email, dates...). Realistic and specific.',
  `- success_criteria: 1 to ${MAX_CRITERIA} short sentences about what the agent does, each checkable from the`,
  '  transcript alone. Use only what the agent configuration supports; do not invent policies or facts.',
  "- call_success_type: 'all' unless any single criterion is enough.",
  '- name: a short title, different from the names already used.',
].join('\n');

function describeAction(a: GenerationAction): string {
  const label = a.identifier?.trim() || a.name?.trim() || '(unnamed)';
  const details = [
    a.description?.trim(),
    a.instructions?.trim() ? `when: ${a.instructions.trim()}` : undefined,
    a.answer_kind ? `answer: ${a.answer_kind}` : undefined,
    a.choices && a.choices.length > 0 ? `choices: ${a.choices.join(', ')}` : undefined,
  ].filter((d): d is string => !!d);
  return `- ${a.kind} "${label}"${details.length > 0 ? `: ${clip(details.join('; '), 300)}` : ''}`;
}

/** The request for one slot: the agent's configuration, the names used so far, and the focus. */
export function generationMessages(
  input: GenerationInput,
  slot: CaseSlot,
  usedNames: readonly string[],
): ChatMessage[] {
  const { agent } = input;
  const reasons = (agent.end_call_reasons ?? []).map((r) => (typeof r === 'string' ? r : r.reason));
  const actions = (input.actions ?? []).map(describeAction);
  const topics = (input.knowledgeTopics ?? []).map((t) => `- ${t}`);
  const prompt = agent.prompt?.trim() || '(none)';
  const user = [
    '## Agent',
    `Name: ${agent.name}`,
    `Type: ${agent.type ?? 'unknown'}`,
    `Language: ${agent.language ?? 'unknown'} (write the caller's prompt so they speak it)`,
    `Greeting: ${agent.greeting_message?.trim() || '(none)'}`,
    `End-call reasons: ${reasons.length > 0 ? reasons.join('; ') : '(none)'}`,
    '## Agent prompt',
    prompt.length > PROMPT_MAX_CHARS ? `${prompt.slice(0, PROMPT_MAX_CHARS)}\n[…]` : prompt,
    '## Actions',
    actions.length > 0 ? actions.join('\n') : '(none)',
    '## Knowledge sources',
    topics.length > 0 ? topics.join('\n') : '(none)',
    '## Names already used',
    usedNames.length > 0 ? usedNames.map((n) => `- ${n}`).join('\n') : '(none)',
    '## Write the test case for',
    slot.focus,
  ].join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
}

type Parsed = { ok: true; case: Omit<GeneratedCase, 'type'> } | { ok: false; error: string };

/** Reads the tool arguments: trimmed strings, empty criteria dropped, then checked strictly. */
export function parseCase(argumentsJson: string): Parsed {
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
  const text = (v: unknown) => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : v);
  const criteria = Array.isArray(given.success_criteria)
    ? given.success_criteria.map(text).filter((c) => c !== '')
    : given.success_criteria;
  const candidate = {
    name: typeof given.name === 'string' ? clip(given.name, CASE_NAME_MAX_CHARS) : given.name,
    prompt: typeof given.prompt === 'string' ? given.prompt.trim() : given.prompt,
    success_criteria: criteria,
    call_success_type: given.call_success_type ?? 'all',
  };
  if (Value.Check(CaseSchema, candidate)) return { ok: true, case: candidate };
  const errors = [...Value.Errors(CaseSchema, candidate)]
    .slice(0, 3)
    .map((e) => `${e.path.slice(1) || '(root)'}: ${e.message}`);
  return { ok: false, error: `invalid test case: ${errors.join('; ')}` };
}

async function askModel(
  llm: LLM,
  messages: ChatMessage[],
  deps: GenerationDeps,
): Promise<Parsed | { ok: false; error: string; aborted: true }> {
  try {
    const reply = await collectChat(
      llm.chat({
        ...(deps.model !== undefined ? { model: deps.model } : {}),
        messages,
        tools: [caseToolSpec()],
        toolChoice: 'required',
        temperature: 0.7,
        ...(deps.signal ? { signal: deps.signal } : {}),
      }),
    );
    if (reply.finishReason === 'aborted') return { ok: false, error: 'aborted', aborted: true };
    const call = reply.toolCalls.find((c) => c.name === CASE_TOOL);
    if (!call) return { ok: false, error: `the model did not call ${CASE_TOOL}` };
    return parseCase(call.arguments);
  } catch (e) {
    if (deps.signal?.aborted) return { ok: false, error: 'aborted', aborted: true };
    const detail =
      e instanceof LLMError ? `${String(e.code)}: ${e.message}` : e instanceof Error ? e.message : String(e);
    return { ok: false, error: `model error (${detail})` };
  }
}

/** The model's case for a slot, or null when it failed twice (or was aborted). */
async function modelCase(
  llm: LLM,
  input: GenerationInput,
  slot: CaseSlot,
  usedNames: readonly string[],
  deps: GenerationDeps,
): Promise<Omit<GeneratedCase, 'type'> | null | 'aborted'> {
  const base = generationMessages(input, slot, usedNames);
  let messages = base;
  for (let attempt = 1; attempt <= GENERATION_ATTEMPTS; attempt++) {
    if (deps.signal?.aborted) return 'aborted';
    const answer = await askModel(llm, messages, deps);
    if (answer.ok) return answer.case;
    if ('aborted' in answer) return 'aborted';
    messages = [
      ...base,
      {
        role: 'user',
        content:
          `Your previous answer could not be used (${answer.error}). Call ${CASE_TOOL} again with a ` +
          `non-empty name and prompt, 1 to ${MAX_CRITERIA} success criteria and call_success_type 'all' or 'any'.`,
      },
    ];
  }
  return null;
}

/**
 * Yields up to `count` (1..20) test cases for the agent, one at a time. Never yields a malformed
 * case; stops early (without error) when `signal` is aborted.
 */
export async function* generateCases(
  input: GenerationInput,
  deps: GenerationDeps = {},
): AsyncGenerator<GeneratedCase, void, undefined> {
  const slots = casePlan(input).slice(0, clampCount(input.count));
  const llm = deps.llm;
  const used = new Set<string>();
  const names: string[] = [];
  for (const slot of slots) {
    if (deps.signal?.aborted) return;
    let made: Omit<GeneratedCase, 'type'> | null = null;
    if (usesModel(llm)) {
      const answer = await modelCase(llm, input, slot, names, deps);
      if (answer === 'aborted') return;
      made = answer;
    }
    const chosen = made ?? slot.fallback;
    const name = uniqueName(chosen.name, used);
    names.push(name);
    yield {
      name,
      prompt: chosen.prompt,
      type: 'custom',
      success_criteria: [...chosen.success_criteria],
      call_success_type: chosen.call_success_type,
    };
  }
}
