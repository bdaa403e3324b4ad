import { lastAsked, userAfter, type History, type Turn } from './history.ts';
import { isQuestion, yesNo, type YesNo } from './intents.ts';
import type { AgentProfile } from './prompt.ts';
import type { Question } from './questions.ts';
import { contentTokens } from './text.ts';
import type { Extractor, ToolSet } from './tools.ts';

// The agent's plan: the questions to get through, in order. They come from the prompt's
// instructions, from extraction tools (a prompt question about the same thing is replaced by the
// tool's), and from bookable offers ("help callers book an appointment" → "Would you like to book
// an appointment?"). Where the conversation stands is read from the history each time.

export interface Step {
  question: Question;
  tool?: Extractor;
}

export interface StepState {
  step: Step;
  /** Turn index of the last time the question was asked, or -1. */
  askedAt: number;
  /** The caller's reply to it, if any. */
  answer?: string;
  answerYesNo?: YesNo;
  done: boolean;
}

/** Asked after a yes to a booking question. */
export const WHEN_QUESTION = 'What day and time would suit you?';
/** Asked by outbound agents whose prompt gives no question, after saying why they call. */
export const INTEREST_QUESTION = 'Would you be interested?';

const GENERIC = new Set(
  'ask record collect capture save store extract caller callers customer user value could have provide confirm'.split(
    ' ',
  ),
);

function topicTokens(extractor: Extractor): Set<string> {
  return new Set(
    contentTokens(
      `${extractor.name.replace(/_/g, ' ')} ${extractor.question.text} ${extractor.question.topic ?? ''}`,
      {
        ignore: GENERIC,
      },
    ),
  );
}

export function buildSteps(profile: AgentProfile, tools: ToolSet): Step[] {
  const steps: Step[] = [];
  const used = new Set<string>();
  const questions = [...profile.questions];
  if (questions.length === 0 && profile.outbound && profile.purpose)
    questions.push({ text: INTEREST_QUESTION, kind: 'yesno', interest: true });
  for (const question of questions) {
    const words = contentTokens(question.text, { ignore: GENERIC });
    const tool = tools.extractors.find(
      (e) => !used.has(e.name) && question.kind !== 'yesno' && words.some((w) => topicTokens(e).has(w)),
    );
    if (tool) {
      used.add(tool.name);
      steps.push({ question: tool.question, tool });
    } else steps.push({ question });
  }
  for (const tool of tools.extractors)
    if (!used.has(tool.name)) steps.push({ question: tool.question, tool });
  if (!steps.some((s) => s.question.booking))
    for (const offer of profile.offers)
      if (offer.booking)
        steps.push({ question: { text: `Would you like to ${offer.text}?`, kind: 'yesno', booking: true } });
  return steps;
}

/**
 * Where each step stands after the given turns. A question is done once the caller replied to it
 * with something other than a question; a tool's question once the tool returned a result or the
 * caller said no. After a no to an offer, the remaining steps are dropped (done).
 */
export function stepStates(steps: readonly Step[], turns: readonly Turn[], history: History): StepState[] {
  const whenAsked = lastAsked(turns, WHEN_QUESTION) >= 0;
  let declinedOffer = false;
  return steps.map((step) => {
    const askedAt = lastAsked(turns, step.question.text);
    const answer = askedAt >= 0 ? userAfter(turns, askedAt) : undefined;
    const replied = answer !== undefined && !isQuestion(answer);
    const answerYesNo = replied ? yesNo(answer) : undefined;
    let done: boolean;
    if (declinedOffer) done = true;
    else if (step.tool) {
      const result = history.results.get(step.tool.name);
      done =
        (result !== undefined && result.ok) ||
        (replied && answerYesNo === 'no' && step.tool.kind !== 'boolean');
    } else done = replied || (step.question.booking === true && whenAsked);
    if (done && !step.tool && step.question.interest && answerYesNo === 'no') declinedOffer = true;
    return { step, askedAt, answer, answerYesNo, done };
  });
}
