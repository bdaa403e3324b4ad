import { capitalize, clip, humanize, phrase, toCaller } from './text.ts';

// The offline case generator (docs/builtin-model.md, "Simulation case generation"): test cases
// derived from an agent's configuration alone, deterministically. It also gives the plan a model
// follows (one slot per case, each with a focus) and the stand-in for a slot the model fails.

export const SIMULATION_TEST_KINDS = [
  'csat_score',
  'accuracy_of_responses',
  'script_compliance',
  'angry_user',
  'repetitive_phrases',
  'conversational_naturalness',
  'task_completion',
] as const;
export type SimulationTestKind = (typeof SIMULATION_TEST_KINDS)[number];

export const MAX_CASES = 20;
export const MAX_CRITERIA = 8;
export const CASE_NAME_MAX_CHARS = 80;

export interface GenerationAgent {
  name: string;
  /** `inbound`, `outbound`... (only shown to a model). */
  type?: string | null;
  prompt?: string | null;
  greeting_message?: string | null;
  end_call_reasons?: readonly (string | { reason: string })[] | null;
  language?: string | null;
}

/**
 * An action attached to the agent. `kind` is the action kind (`INFORMATION_EXTRACTOR`,
 * `CUSTOM_ACTION`, `REAL_TIME_BOOKING`, `LIVE_TRANSFER`, `SEND_SMS`, `INCALL_SMS`...); an
 * extractor's own `kind` (yes_no | single_choice | open_question) goes in `answer_kind`.
 */
export interface GenerationAction {
  kind: string;
  name?: string | null;
  identifier?: string | null;
  description?: string | null;
  instructions?: string | null;
  answer_kind?: string | null;
  choices?: readonly string[] | null;
}

export interface GenerationInput {
  agent: GenerationAgent;
  actions?: readonly GenerationAction[];
  /** Titles of the agent's knowledge sources. */
  knowledgeTopics?: readonly string[];
  /** 1..20; clamped. */
  count: number;
  /** Scenarios the user asked for; each becomes a case (its text is the caller's goal), first. */
  scenarios?: readonly string[];
  /** Test kinds (SIMULATION_TEST_KINDS); unknown ones are ignored. */
  includeTests?: readonly string[];
}

export interface GeneratedCase {
  name: string;
  prompt: string;
  type: 'custom';
  success_criteria: string[];
  call_success_type: 'all' | 'any';
}

/** One case to make: what it is about (told to a model) and the offline case for it. */
export interface CaseSlot {
  focus: string;
  fallback: GeneratedCase;
}

// ---------------------------------------------------------------------------------------------
// Reading the configuration

/** What the agent is for, as a verb phrase of the caller ("book a cleaning"); null if unknown. */
export function callerGoal(prompt: string): string | null {
  const patterns = [
    /\bhelp(?:s|ing)?\s+(?:the\s+)?(?:callers?|customers?|clients?|people|patients?|users?|guests?|visitors?|them)\s+(?:to\s+)?([^.!?\n;]+)/i,
    /\b(?:callers?|customers?|clients?|people|patients?|users?)\s+(?:who\s+)?(?:want|need|would like)\s+to\s+([^.!?\n;]+)/i,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(prompt)?.[1];
    if (!match) continue;
    // The first part only: "book a cleaning and answer questions" → "book a cleaning".
    const first = match.split(/,|\band\b|\bor\b|\bwhile\b|\bby\b/i)[0] ?? '';
    const goal = phrase(toCaller(first));
    if (goal.split(' ').length >= 1 && goal.length >= 3) return clip(goal, 80);
  }
  return null;
}

/** What the agent is for, in its own terms ("booking dental cleanings"); null if unknown. */
export function agentPurpose(prompt: string): string | null {
  const own = /\byour (?:main )?(?:goal|job|task|purpose|role|aim) is to\s+([^.!?\n;]+)/i.exec(prompt)?.[1];
  if (own) return clip(phrase(own), 80);
  const goal = callerGoal(prompt);
  return goal ? `helping callers ${goal}` : null;
}

/** Instructions of the prompt the agent should follow in order (at most `max`). */
export function scriptSteps(prompt: string, max = 4): string[] {
  const verbs =
    /^(?:ask|collect|confirm|find out|offer|book|schedule|verify|get|gather|request|tell|explain|mention|check|greet|introduce)\b/i;
  const steps: string[] = [];
  for (const raw of prompt.split(/\n|(?<=[.!?])\s+/)) {
    const line = raw
      .replace(/^\s*(?:[-*•]|\d+[.)]|step \d+:?)\s*/i, '')
      .replace(/^(?:then|next|first|finally|always|also)[,]?\s+/i, '')
      .trim();
    if (verbs.test(line)) steps.push(clip(line.replace(/[.!?;:,\s]+$/, ''), 120));
    if (steps.length >= max) break;
  }
  return steps;
}

/** The organisation or agent name the caller is calling. */
function whoIsCalled(agent: GenerationAgent): string {
  const prompt = agent.prompt ?? '';
  const org =
    /\b(?:at|from|for|of)\s+((?:[A-Z][\w'&-]*)(?:\s+[A-Z][\w'&-]*){0,4})/.exec(prompt)?.[1] ??
    /\b(?:reached|calling|welcome to)\s+((?:[A-Z][\w'&-]*)(?:\s+[A-Z][\w'&-]*){0,4})/.exec(
      agent.greeting_message ?? '',
    )?.[1];
  return org?.trim() || agent.name.trim() || 'the company';
}

const reasonText = (r: string | { reason: string }): string => (typeof r === 'string' ? r : r.reason).trim();

const IRREGULAR: Record<string, string> = {
  is: 'am',
  has: 'have',
  does: 'do',
  "doesn't": "don't",
  "isn't": 'am not',
  was: 'was',
};

function baseForm(verb: string): string {
  const v = verb.toLowerCase();
  const irregular = IRREGULAR[v];
  if (irregular) return irregular;
  if (v.length > 4 && v.endsWith('ies')) return `${v.slice(0, -3)}y`;
  if (/(?:ch|sh|ss|x|o)es$/.test(v)) return v.slice(0, -2);
  if (/[^s]s$/.test(v)) return v.slice(0, -1);
  return v;
}

/** "the caller is not interested" → "I am not interested." (what a caller would say). */
export function reasonLine(reason: string): string {
  const r = phrase(reason);
  const subject = /^(?:the\s+|a\s+)?(?:caller|customer|user|person|lead|client|prospect)\s+(\S+)(.*)$/i.exec(
    r,
  );
  if (subject?.[1]) {
    const rest = (subject[2] ?? '')
      .replace(/\bthemselves\b/gi, 'myself')
      .replace(/\btheir\b/gi, 'my')
      .replace(/\bthem\b/gi, 'me');
    return `I ${baseForm(subject[1])}${rest}.`;
  }
  return `Sorry, ${r}.`;
}

function sampleValue(action: GenerationAction): string {
  const id = `${action.identifier ?? ''} ${action.description ?? ''}`.toLowerCase();
  if (action.answer_kind === 'yes_no') return 'yes';
  const choice = action.choices?.find((c) => c.trim() !== '');
  if (action.answer_kind === 'single_choice' && choice) return choice.trim();
  if (/e-?mail/.test(id)) return 'jane.doe@example.com';
  if (/phone|mobile|number to reach/.test(id)) return '415 555 0134';
  if (/address/.test(id)) return '12 Oak Street, Springfield';
  if (/\bname\b/.test(id)) return 'Jane Doe';
  if (/date|time|day|when/.test(id)) return 'Tuesday at 10am';
  if (/how many|number of|count|size|age/.test(id)) return 'two';
  if (choice) return choice.trim();
  return 'a short, plausible answer of your own';
}

// ---------------------------------------------------------------------------------------------
// The cases

interface Context {
  org: string;
  goal: string | null;
  purpose: string | null;
  /** "You are calling to book a cleaning." or "You have a question for Acme." */
  goalSentence: string;
  /** What the caller says first when nothing else is asked. */
  opening: string;
  steps: string[];
  topics: string[];
}

function context(input: GenerationInput): Context {
  const prompt = input.agent.prompt ?? '';
  const org = whoIsCalled(input.agent);
  const goal = callerGoal(prompt);
  return {
    org,
    goal,
    purpose: agentPurpose(prompt),
    goalSentence: goal ? `You are calling ${org} to ${goal}.` : `You are calling ${org} with a question.`,
    opening: goal ? `Hi, I'd like to ${goal}.` : 'Hi, I have a question.',
    steps: scriptSteps(prompt),
    topics: (input.knowledgeTopics ?? []).map((t) => t.trim()).filter((t) => t !== ''),
  };
}

const make = (
  name: string,
  prompt: string[],
  criteria: string[],
  call_success_type: 'all' | 'any' = 'all',
): GeneratedCase => ({
  name: clip(name, CASE_NAME_MAX_CHARS),
  prompt: prompt.join(' '),
  type: 'custom',
  success_criteria: criteria.slice(0, MAX_CRITERIA),
  call_success_type,
});

const POLITE = 'The agent stays polite and professional';
const NATURAL_END = 'The conversation reaches a natural end';
const GREETS = 'The agent greets the caller';

function helpsCriterion(c: Context): string {
  return c.goal ? `The agent helps the caller ${c.goal}` : "The agent responds to the caller's request";
}

function happyPath(input: GenerationInput, c: Context): CaseSlot {
  const greeting = input.agent.greeting_message?.trim();
  return {
    focus:
      'the happy path: a friendly, cooperative caller whose goal is exactly what the agent is for' +
      (greeting ? ` (the agent greets callers with: ${greeting})` : ''),
    fallback: make(
      'Happy path',
      [
        c.goalSentence,
        `Open with "${c.opening}"`,
        'You are friendly and cooperative: answer every question the agent asks, briefly and truthfully, and say goodbye once you have what you need.',
      ],
      [GREETS, helpsCriterion(c), NATURAL_END],
    ),
  };
}

function scenarioSlot(text: string, c: Context): CaseSlot {
  const goal = phrase(text);
  const want =
    /^(?:the\s+|a\s+)?(?:caller|customer|user|client|person)\s+(?:wants|needs|would like)\s+to\s+(.+)$/i.exec(
      goal,
    )?.[1];
  return {
    focus: `this scenario, which the user asked for; it is the caller's goal: ${text.trim()}`,
    fallback: make(
      `Scenario: ${capitalize(goal)}`,
      [
        want ? `You want to ${toCaller(want)}.` : `You are calling about this: ${goal}.`,
        `You are calling ${c.org}.`,
        'Explain what you need, answer the agent’s questions, and say goodbye when you are done.',
      ],
      [`The agent responds to the caller's goal: ${goal}`, POLITE],
    ),
  };
}

function extractionSlot(action: GenerationAction, c: Context): CaseSlot | null {
  const identifier = action.identifier?.trim() || action.name?.trim();
  if (!identifier) return null;
  const description = phrase(action.description?.trim() || humanize(identifier));
  const value = sampleValue(action);
  // "which plan they want" is asked as it is; "the caller's email address" is asked for.
  const asks = /^(?:which|what|whether|if|how|when|where|who)\b/.test(description) ? 'asks' : 'asks for';
  return {
    focus: `the agent must collect "${identifier}" (${description}); the caller gives it when asked`,
    fallback: make(
      `Provides ${humanize(identifier)}`,
      [
        c.goalSentence,
        `Open with "${c.opening}"`,
        `You cooperate. When the agent ${asks} ${toCaller(description)}, you give it: ${value}.`,
        'Say goodbye once the agent has what it needs.',
      ],
      [`The agent ${asks} ${description}`, `The agent records ${humanize(identifier)}`],
    ),
  };
}

function endReasonSlot(reason: string, c: Context): CaseSlot {
  const line = reasonLine(reason);
  return {
    focus: `a caller whose situation triggers the agent's end-call reason "${reason}"`,
    fallback: make(
      `Ends call: ${reason}`,
      [
        `You are calling ${c.org}.`,
        `Open with "${line}"`,
        `Your situation, as the agent would describe it: ${phrase(reason)}.`,
        'If the agent asks anything, repeat that, then say goodbye.',
      ],
      [
        /^(?:the\s+|a\s+)?(?:caller|customer|user|person|lead|client|prospect)\b/i.test(phrase(reason))
          ? `The agent ends the call because ${phrase(reason)}`
          : `The agent ends the call for this reason: ${phrase(reason)}`,
      ],
    ),
  };
}

function knowledgeSlot(topic: string, c: Context): CaseSlot {
  const t = phrase(topic);
  return {
    focus: `a caller with a question the agent's knowledge source "${topic}" answers`,
    fallback: make(
      `Asks about ${t}`,
      [
        `You are calling ${c.org}.`,
        `Open with "Hi, I have a question about ${t}."`,
        'Listen to the answer, ask one follow-up question if it is unclear, then thank the agent and say goodbye.',
      ],
      [`The agent answers the question about ${t}`, POLITE],
    ),
  };
}

function actionSlot(action: GenerationAction, c: Context): CaseSlot | null {
  const kind = action.kind.toUpperCase();
  const name = action.name?.trim() || action.identifier?.trim() || humanize(kind);
  if (kind === 'REAL_TIME_BOOKING') {
    return {
      focus: `a caller who wants to book an appointment (the agent has the booking action "${name}")`,
      fallback: bookingCase(c),
    };
  }
  if (kind === 'LIVE_TRANSFER') {
    const when = action.instructions?.trim();
    return {
      focus: `a caller who asks to speak to a human (the agent has the transfer action "${name}"${when ? `, used when: ${when}` : ''})`,
      fallback: make(
        `Asks for a human (${name})`,
        [
          `You are calling ${c.org}.`,
          'Open with "Can I speak to a real person, please?"',
          'You insist politely on talking to a human. If the agent offers to transfer you, accept.',
        ],
        ['The agent offers to transfer the caller to a person', POLITE],
      ),
    };
  }
  if (kind === 'SEND_SMS' || kind === 'INCALL_SMS' || kind === 'INCALL_WHATSAPP') {
    return {
      focus: `a caller who would like the details sent by text message (the agent has the action "${name}")`,
      fallback: make(
        `Wants details by text (${name})`,
        [
          c.goalSentence,
          `Open with "${c.opening}"`,
          'You ask the agent to text you the details, and confirm your number when asked: 415 555 0134.',
        ],
        ['The agent offers to send the details by text message', POLITE],
      ),
    };
  }
  if (kind === 'CUSTOM_ACTION') {
    const what = phrase(action.description?.trim() || humanize(name));
    return {
      focus: `a caller whose request needs the agent's action "${name}" (${what})`,
      fallback: make(
        `Needs ${humanize(name)}`,
        [
          `You are calling ${c.org}.`,
          `Open with "Hi, I need help with ${humanize(name)}."`,
          `What you need is what this does: ${what}. Answer the agent's questions, then say goodbye.`,
        ],
        [`The agent helps with ${what}`, POLITE],
      ),
    };
  }
  return null;
}

function bookingCase(c: Context): GeneratedCase {
  return make(
    'Books an appointment',
    [
      `You are calling ${c.org}.`,
      'Open with "Hi, I\'d like to book an appointment."',
      'When asked for a day and time, say Tuesday at 10am. Answer other questions briefly, then say goodbye.',
    ],
    ['The agent offers to book an appointment', 'The agent asks which day and time suit the caller'],
  );
}

function angrySlot(c: Context, name = 'Angry caller'): CaseSlot {
  return {
    focus: 'an angry, impatient caller; the agent must stay polite and de-escalate',
    fallback: make(
      name,
      [
        `You are an angry, impatient caller. ${c.goalSentence}`,
        'Open with "This is ridiculous, I have been waiting for days and nobody got back to me!"',
        'You complain and interrupt, and you calm down only if the agent is polite and helpful.',
      ],
      [POLITE, "The agent acknowledges the caller's frustration and de-escalates"],
    ),
  };
}

function offTopicSlot(c: Context): CaseSlot {
  const topic = c.purpose ?? 'the purpose of the call';
  return {
    focus: 'an off-topic caller who keeps talking about unrelated things; the agent must steer back',
    fallback: make(
      'Off-topic caller',
      [
        'You are a chatty caller.',
        'Open with "Hi! Did you see the football game last night?"',
        `You keep talking about unrelated things (sports, the weather) before getting to your real reason: ${c.goal ? `you want to ${c.goal}` : 'a question'}.`,
      ],
      [`The agent steers the conversation back to ${topic}`, POLITE],
    ),
  };
}

function shortAnswersSlot(c: Context): CaseSlot {
  return {
    focus: 'a caller who says very little: one-word answers, long pauses, no details unless asked',
    fallback: make(
      'Short-answer caller',
      [
        c.goalSentence,
        'Open with "Hi."',
        'You answer in one or two words and never volunteer details; the agent has to ask for everything.',
      ],
      [
        'The agent asks follow-up questions to move the conversation forward',
        'The agent stays patient and polite',
      ],
    ),
  };
}

function testSlot(kind: SimulationTestKind, c: Context): CaseSlot {
  switch (kind) {
    case 'csat_score':
      return {
        focus: 'customer satisfaction: a caller who should leave the call satisfied',
        fallback: make(
          'Caller satisfaction',
          [
            c.goalSentence,
            `Open with "${c.opening}"`,
            'You are polite; you thank the agent if it helped you.',
          ],
          ['The caller ends the call satisfied', helpsCriterion(c)],
        ),
      };
    case 'accuracy_of_responses': {
      const topic = c.topics[0]
        ? phrase(c.topics[0])
        : c.goal
          ? `how to ${c.goal}`
          : 'what the company offers';
      return {
        focus: `accuracy of responses: a caller asking precise questions about ${topic}; the agent's answers must match its prompt and knowledge`,
        fallback: make(
          'Accuracy of responses',
          [
            `You are calling ${c.org}.`,
            `Open with "Hi, I have a question about ${topic}."`,
            'You ask precise questions and check the answers; then say goodbye.',
          ],
          [`The agent answers the question about ${topic}`, NATURAL_END],
        ),
      };
    }
    case 'script_compliance':
      return {
        focus: "script compliance: a cooperative caller; the agent must follow its prompt's steps in order",
        fallback: make(
          'Script compliance',
          [c.goalSentence, `Open with "${c.opening}"`, 'You cooperate and answer every question.'],
          c.steps.length > 0
            ? c.steps.map((s) => `The agent follows this step of its script: ${s}`)
            : [GREETS, helpsCriterion(c)],
        ),
      };
    case 'angry_user':
      return angrySlot(c, 'Angry user');
    case 'repetitive_phrases':
      return {
        focus:
          'repetitive phrases: a caller who asks for the same thing several times; the agent must vary its wording',
        fallback: make(
          'Repetitive phrases',
          [
            c.goalSentence,
            `Open with "${c.opening}"`,
            'You ask the agent to repeat itself and ask the same question twice.',
          ],
          ['The agent does not repeat the same sentence word for word', POLITE],
        ),
      };
    case 'conversational_naturalness':
      return {
        focus:
          'conversational naturalness: the agent must sound natural, short and spoken, not like a document',
        fallback: make(
          'Conversational naturalness',
          [c.goalSentence, `Open with "${c.opening}"`, 'You talk casually, like on a real phone call.'],
          [
            'The agent keeps its replies short and conversational',
            'The agent does not use lists or text formatting',
          ],
        ),
      };
    case 'task_completion':
      return {
        focus: 'task completion: a cooperative caller; the agent must complete what the caller came for',
        fallback: make(
          'Task completion',
          [c.goalSentence, `Open with "${c.opening}"`, 'You cooperate and say goodbye once it is done.'],
          [helpsCriterion(c), NATURAL_END],
        ),
      };
  }
}

/** Every slot of the plan, in order, before the count cap; names already unique. */
export function casePlan(input: GenerationInput): CaseSlot[] {
  const c = context(input);
  const slots: CaseSlot[] = [];

  const scenarios = [...new Set((input.scenarios ?? []).map((s) => s.trim()).filter((s) => s !== ''))];
  slots.push(...scenarios.map((s) => scenarioSlot(s, c)));

  const tests = [...new Set(input.includeTests ?? [])].filter((k): k is SimulationTestKind =>
    (SIMULATION_TEST_KINDS as readonly string[]).includes(k),
  );
  slots.push(...tests.map((k) => testSlot(k, c)));

  // The configuration's cases, taken round-robin from these groups so a small count still covers
  // different kinds: the first of every group, then the second of every group...
  const actions = input.actions ?? [];
  const kindOf = (a: GenerationAction) => a.kind.toUpperCase();
  const extractions = actions
    .filter((a) => kindOf(a) === 'INFORMATION_EXTRACTOR')
    .map((a) => extractionSlot(a, c))
    .filter((s): s is CaseSlot => s !== null);
  const reasons = [
    ...new Set((input.agent.end_call_reasons ?? []).map(reasonText).filter((r) => r !== '')),
  ].map((r) => endReasonSlot(r, c));
  const topics = [...new Set(c.topics)].map((t) => knowledgeSlot(t, c));
  const actionSlots = actions
    .filter((a) => kindOf(a) !== 'INFORMATION_EXTRACTOR')
    .map((a) => actionSlot(a, c))
    .filter((s): s is CaseSlot => s !== null);
  const booksInPrompt = /\b(?:book|schedul|appointment|reserv)/i.test(input.agent.prompt ?? '');
  if (booksInPrompt && !actions.some((a) => kindOf(a) === 'REAL_TIME_BOOKING')) {
    actionSlots.unshift({ focus: 'a caller who wants to book an appointment', fallback: bookingCase(c) });
  }
  const groups: CaseSlot[][] = [
    [happyPath(input, c)],
    extractions,
    reasons,
    topics,
    actionSlots,
    tests.includes('angry_user') ? [] : [angrySlot(c)],
    [offTopicSlot(c)],
    [shortAnswersSlot(c)],
  ];
  const longest = Math.max(...groups.map((g) => g.length));
  for (let round = 0; round < longest; round++) {
    for (const group of groups) {
      const slot = group[round];
      if (slot) slots.push(slot);
    }
  }

  const used = new Set<string>();
  for (const slot of slots) slot.fallback = { ...slot.fallback, name: uniqueName(slot.fallback.name, used) };
  return slots;
}

/** `name`, or `name (2)`, `name (3)`... so that no two cases share a name (case-insensitively). */
export function uniqueName(name: string, used: Set<string>): string {
  const base = clip(name.trim() || 'Test case', CASE_NAME_MAX_CHARS - 5);
  let candidate = base;
  for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = `${base} (${n})`;
  used.add(candidate.toLowerCase());
  return candidate;
}

/** Clamps a requested count to 1..20 (a missing or non-numeric count gives 5). */
export function clampCount(count: number): number {
  if (!Number.isFinite(count)) return 5;
  return Math.min(MAX_CASES, Math.max(1, Math.floor(count)));
}

/** The offline generator: the plan's cases, capped at `count`. Deterministic. */
export function offlineCases(input: GenerationInput): GeneratedCase[] {
  return casePlan(input)
    .slice(0, clampCount(input.count))
    .map((s) => s.fallback);
}
