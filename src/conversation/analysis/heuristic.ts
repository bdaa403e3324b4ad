import { REAL_TIME_BOOKING_ACTION_TYPE } from '../../actions/index.ts';
import { FALLBACK_REPLY } from '../session.ts';
import type { AnalysisInput } from './input.ts';
import {
  AFFIRMATIVE,
  AGENT_COURTESY,
  AGENT_RUDE,
  AI_BREAK,
  OBJECTIONS,
  OPT_OUT,
  contentStems,
  normalize,
  sentimentMarkers,
  words,
} from './lexicon.ts';
import type { AnalysisFields, GradedValue, JudgedValue } from './schema.ts';
import { extractiveSummary } from './summary.ts';

// The deterministic judge, used with the builtin model (which cannot judge) and whenever the
// model judge fails. Each field is a small rule over the transcript and the call's facts; the
// rules are listed in docs/builtin-model.md ("Post-call analysis"). Same input, same analysis.

type Verdict<T> = [T, string];

/** End reasons of a conversation that reached an ordinary end. */
const COMPLETED = new Set(['agent_goodbye', 'human_goodbye', 'custom_end_call']);

const NOT_COMPLETED: Record<string, string> = {
  voicemail: 'The call reached voicemail.',
  voicemail_message_left: 'The call reached voicemail; a message was left.',
  human_pick_up_cut_off: 'The person hung up before the conversation finished.',
  max_duration: 'The call reached its maximum duration.',
  user_canceled: 'The call was canceled.',
  max_turns: 'The conversation reached its turn limit.',
};

const quote = (text: string, max = 80) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `"${flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat}"`;
};

/** The facts every rule shares, worked out once. */
function facts(input: AnalysisInput) {
  const turns = input.turns.filter((t) => t.text.trim() !== '');
  const agent = turns.filter((t) => t.speaker === 'agent').map((t) => t.text);
  const user = turns.filter((t) => t.speaker === 'user').map((t) => t.text);
  const optOut = user.find((t) => OPT_OUT.test(normalize(t)));
  const human =
    input.answeredBy === 'human' ||
    (input.answeredBy === null && user.length > 0 && !input.endCallReason?.startsWith('voicemail'));
  return { turns, agent, user, optOut, human, completed: COMPLETED.has(input.endCallReason ?? '') };
}
type Facts = ReturnType<typeof facts>;

function answeredByHuman(input: AnalysisInput, f: Facts): Verdict<boolean> {
  if (f.human) return [true, ''];
  if (input.answeredBy === 'machine') return [false, 'The call was answered by a machine (voicemail).'];
  if (input.endCallReason?.startsWith('voicemail')) return [false, 'The call reached voicemail.'];
  return [false, 'No one spoke on the other end.'];
}

function callCompletion(input: AnalysisInput, f: Facts): Verdict<boolean> {
  if (f.completed && f.user.length > 0) return [true, ''];
  if (f.completed) return [false, 'The call ended before the person said anything.'];
  const reason = input.endCallReason;
  return [
    false,
    (reason && NOT_COMPLETED[reason]) ??
      (reason && reason !== 'undefined'
        ? `The call ended with reason ${reason}.`
        : 'The call ended without a recorded reason.'),
  ];
}

function noRepetition(f: Facts): Verdict<boolean> {
  const seen = new Set<string>();
  for (const line of f.agent) {
    const key = words(line).join(' ');
    // Short lines ("Okay.", "Great.") repeat naturally; only sentences count.
    if (key.split(' ').length < 3) continue;
    if (seen.has(key)) return [false, `The agent repeated itself: ${quote(line)}.`];
    seen.add(key);
  }
  return [true, ''];
}

function noOptOut(f: Facts): Verdict<boolean> {
  return f.optOut ? [false, `The person asked not to be contacted: ${quote(f.optOut)}.`] : [true, ''];
}

function optedIn(f: Facts): Verdict<boolean> {
  if (f.optOut) return [false, 'The person opted out.'];
  if (!f.human) return [false, 'No person took part in the call.'];
  if (f.user.some((t) => AFFIRMATIVE.test(normalize(t)))) return [true, ''];
  return [false, 'The person did not agree to anything during the call.'];
}

function userSentiment(f: Facts): Verdict<GradedValue> {
  if (f.user.length === 0) return ['partial', 'The person said nothing, so their sentiment is unknown.'];
  let positive = 0;
  let negative = 0;
  let worst = '';
  for (const line of f.user) {
    const m = sentimentMarkers(line);
    positive += m.positive;
    negative += m.negative;
    if (m.negative > 0 && worst === '') worst = line;
  }
  if (negative === 0) return [true, ''];
  if (negative > positive) return [false, `The person was negative: ${quote(worst)}.`];
  return ['partial', `The person was mixed, partly negative: ${quote(worst)}.`];
}

function agentSentiment(f: Facts): Verdict<GradedValue> {
  if (f.agent.length === 0) return ['partial', 'The agent said nothing.'];
  const rude = f.agent.find((t) => AGENT_RUDE.test(normalize(t)));
  if (rude) return [false, `The agent was impolite: ${quote(rude)}.`];
  if (f.agent.length >= 3 && !f.agent.some((t) => AGENT_COURTESY.test(normalize(t)))) {
    return ['partial', 'The agent showed no courtesy (no thanks, please or apology) in the whole call.'];
  }
  return [true, ''];
}

function appointment(input: AnalysisInput): Verdict<JudgedValue> {
  const bookings = (input.actions ?? []).filter(
    (a) => a.action_type === REAL_TIME_BOOKING_ACTION_TYPE || /book|appointment|schedul/i.test(a.name),
  );
  if (bookings.length === 0) return ['not_applicable', ''];
  if (bookings.some((a) => a.success)) return [true, ''];
  const failed = bookings[0];
  const why = failed?.error_message ? `: ${failed.error_message}` : '.';
  return [false, `The booking action ${failed?.name ?? ''} failed${why}`];
}

/** A passage counts as used when an agent line shares three meaningful words with it. */
function knowledge(input: AnalysisInput, f: Facts): Verdict<JudgedValue> {
  const passages = input.knowledgePassages ?? [];
  if (passages.length === 0) return ['not_applicable', ''];
  const passageStems = passages.map((p) => new Set(contentStems(p)));
  const used = f.agent.some((line) => {
    const stems = new Set(contentStems(line));
    return passageStems.some((p) => [...stems].filter((s) => p.has(s)).length >= 3);
  });
  if (used) return [true, ''];
  return [
    null,
    'Knowledge passages were retrieved, but the agent did not quote them; the heuristic cannot tell whether they were needed.',
  ];
}

const PERSONA = /\b(?:you are|you're|your name is|act as|you play)\b/i;
const PROMPT_NAME = /\b(?:[Yy]ou are|[Yy]our name is)\s+([A-Z][a-z]+)\b/;
const SELF_NAME = /\b(?:[Tt]his is|[Mm]y name is|I'm|I am)\s+([A-Z][a-z]+)\b/g;

function persona(input: AnalysisInput, f: Facts): Verdict<JudgedValue> {
  const prompt = input.agent.prompt ?? '';
  if (!PERSONA.test(prompt)) return ['not_applicable', ''];
  if (f.agent.length === 0) return [null, 'The agent said nothing, so its persona cannot be judged.'];
  const broke = f.agent.find((t) => AI_BREAK.test(normalize(t)));
  if (broke) return [false, `The agent broke character: ${quote(broke)}.`];
  const name = PROMPT_NAME.exec(prompt)?.[1];
  if (name) {
    for (const line of f.agent) {
      // A capitalised word the prompt itself uses (the organisation's name) is no other name.
      const other = [...line.matchAll(SELF_NAME)]
        .map((m) => m[1])
        .find((n) => n !== undefined && n !== name && !prompt.includes(n) && n !== 'Sorry');
      if (other) return [false, `The agent called itself ${other}, but the prompt names it ${name}.`];
    }
  }
  return [true, ''];
}

function style(f: Facts): Verdict<JudgedValue> {
  if (f.agent.length === 0) return [null, 'The agent said nothing, so its style cannot be judged.'];
  const long = f.agent.find((t) => words(t).length > 80);
  if (long) return [false, `An agent line is too long to speak (${words(long).length} words).`];
  const markup = f.agent.find((t) => /(^|\n)\s*(?:[*#-]\s|\d+\.\s)|\*\*|```/.test(t));
  if (markup) return [false, `The agent used text formatting that cannot be spoken: ${quote(markup)}.`];
  return [true, ''];
}

const STEP_VERB =
  /^(?:(?:first|then|next|finally|after that|also),?\s+)?(ask|collect|confirm|find out|offer|book|schedule|verify|get|gather|request|tell|explain|mention|check)\b(.*)$/i;

/** Instructions of the prompt: list items and sentences that start with a step verb. */
export function promptSteps(prompt: string): string[] {
  const pieces = prompt
    .split(/\n+|(?<=[.!?])\s+/)
    .map((p) => p.replace(/^\s*(?:[-*•]|\d+[.)]|step \d+:?)\s*/i, '').trim());
  return pieces.filter((p) => STEP_VERB.test(p));
}

function steps(input: AnalysisInput, f: Facts): Verdict<JudgedValue> {
  const list = promptSteps(input.agent.prompt ?? '');
  if (list.length === 0 || f.user.length === 0) return ['not_applicable', ''];
  const said = new Set(f.agent.flatMap(contentStems));
  const missed = list.filter((step) => {
    const rest = STEP_VERB.exec(step)?.[2] ?? step;
    const stems = contentStems(rest);
    if (stems.length === 0) return false;
    const hits = stems.filter((s) => said.has(s)).length;
    return hits < Math.ceil(stems.length / 2);
  });
  if (missed.length === 0) return [true, ''];
  const shown = missed
    .slice(0, 3)
    .map((s) => quote(s, 60))
    .join(', ');
  return [false, `The agent did not appear to cover ${missed.length} of ${list.length} steps: ${shown}.`];
}

/** Objections the person raised, with whether the agent answered each. */
function objectionsRaised(input: AnalysisInput, f: Facts) {
  const prompt = normalize(input.agent.prompt ?? '');
  const found: { kind: string; line: string; answered: boolean; defined: boolean }[] = [];
  f.turns.forEach((turn, i) => {
    if (turn.speaker !== 'user') return;
    const text = normalize(turn.text);
    const objection = OBJECTIONS.find((o) => o.said.test(text));
    if (!objection) return;
    const reply = f.turns.slice(i + 1).find((t) => t.speaker === 'agent');
    found.push({
      kind: objection.kind,
      line: turn.text,
      answered: reply !== undefined && reply.text.trim() !== FALLBACK_REPLY,
      defined: objection.inPrompt.test(prompt),
    });
  });
  return found;
}

function objectionVerdict(list: ReturnType<typeof objectionsRaised>): Verdict<JudgedValue> {
  if (list.length === 0) return ['not_applicable', ''];
  const missed = list.find((o) => !o.answered);
  if (missed)
    return [false, `The agent did not answer the objection (${missed.kind}): ${quote(missed.line)}.`];
  return [true, ''];
}

/** The heuristic's judgement of a conversation (feedback not yet trimmed, no aggregates). */
export function heuristicFields(input: AnalysisInput): AnalysisFields {
  const f = facts(input);
  const raised = objectionsRaised(input, f);
  const out = {} as Record<string, unknown>;
  const set = (field: string, [value, feedback]: Verdict<unknown>) => {
    out[field] = value;
    out[`${field}_feedback`] = feedback;
  };
  set('persona', persona(input, f));
  set('style', style(f));
  set('steps', steps(input, f));
  set('objections', objectionVerdict(raised));
  set('objection_not_defined', objectionVerdict(raised.filter((o) => !o.defined)));
  set('knowledge', knowledge(input, f));
  set('appointment', appointment(input));
  set('no_repetition', noRepetition(f));
  const completion = callCompletion(input, f);
  set('call_completion', completion);
  const answered = answeredByHuman(input, f);
  set('answered_by_human', answered);
  set('opted_in', optedIn(f));
  set('no_opt_out', noOptOut(f));
  const userMood = userSentiment(f);
  set('goal', goal(input, f, completion, userMood));
  set('user_sentiment', userMood);
  set('agent_sentiment', agentSentiment(f));
  set('call_summary', [true, extractiveSummary(input, f.turns)]);
  return out as AnalysisFields;
}

function goal(
  input: AnalysisInput,
  f: Facts,
  completion: Verdict<boolean>,
  mood: Verdict<GradedValue>,
): Verdict<GradedValue> {
  if (!f.human || f.user.length === 0) return [false, 'There was no conversation with a person.'];
  if (f.optOut) return [false, 'The person opted out.'];
  const actions = input.actions ?? [];
  const failed = actions.find((a) => !a.success);
  const progress =
    Object.values(input.collectedVariables ?? {}).some((v) => v.collected) || actions.some((a) => a.success);
  if (input.endCallReason === 'custom_end_call') {
    const why = input.customEndCallReason ? `: ${input.customEndCallReason}.` : '.';
    return ['partial', `The call ended on a custom end-call reason${why}`];
  }
  if (!completion[0]) {
    return progress
      ? ['partial', `Some progress was made, but the call did not finish. ${completion[1]}`]
      : [false, `The call did not finish. ${completion[1]}`];
  }
  if (failed) return ['partial', `The action ${failed.name} failed.`];
  if (mood[0] === false) return ['partial', 'The call finished, but the person was negative.'];
  return [true, ''];
}
