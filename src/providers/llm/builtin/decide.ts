import type { ChatRequest } from '../types.ts';
import {
  aboutLine,
  askAgain,
  hello,
  identity,
  line,
  NO_INFO,
  pick,
  purposeLine,
  SORRY,
  unsaid,
  WRAP_UP,
} from './compose.ts';
import { lastAssistant, lineAsks, readHistory, type History, type ToolResult, type Turn } from './history.ts';
import {
  answerText,
  isEmpty,
  isGoodbye,
  isGreeting,
  isQuestion,
  isThanks,
  matchChoice,
  stockQuestion,
  yesNo,
  type StockQuestion,
} from './intents.ts';
import { bestPassage, quotePassage, readKnowledge } from './knowledge.ts';
import { readPrompt, type AgentProfile, type Offer } from './prompt.ts';
import { matchReason } from './reasons.ts';
import { buildSteps, stepStates, WHEN_QUESTION, type Step, type StepState } from './steps.ts';
import { contentTokens } from './text.ts';
import { COMPLETE_REASON, fixedReason, GOODBYE_REASON, readTools, type ToolSet } from './tools.ts';
import { extractValue } from './values.ts';

// The decision: from one chat request (prompt, knowledge, history, tools) to what the agent says
// and which tools it calls. Pure and deterministic: the same request gives the same decision.

export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface Decision {
  text: string;
  toolCalls: PlannedCall[];
}

interface Context {
  profile: AgentProfile;
  tools: ToolSet;
  knowledge: string[];
  history: History;
  steps: Step[];
  /** Varies acknowledgements from turn to turn. */
  seed: number;
}

const KNOWLEDGE_HEADER = /^\s*##\s*knowledge\b/i;
const WHAT_ELSE = 'What else can I help you with?';

export function decide(request: ChatRequest): Decision {
  const prompt =
    request.messages.find((m) => m.role === 'system' && !KNOWLEDGE_HEADER.test(m.content))?.content ?? '';
  const profile = readPrompt(prompt);
  const tools = readTools(request.toolChoice === 'none' ? [] : request.tools);
  const history = readHistory(request.messages);
  const ctx: Context = {
    profile,
    tools,
    knowledge: readKnowledge(request.messages),
    history,
    steps: buildSteps(profile, tools),
    seed: history.assistantCount,
  };
  if (history.trailingResult) return afterTool(ctx, history.trailingResult);
  if (history.lastUser === undefined) return say(greeting(ctx));
  return respond(ctx, history.lastUser);
}

function say(text: string): Decision {
  return { text, toolCalls: [] };
}

function call(name: string, args: Record<string, unknown>): Decision {
  return { text: '', toolCalls: [{ name, arguments: args }] };
}

/** Ends the call with the reason, or says goodbye when there is no end_call tool. */
function endCall(ctx: Context, reason: string): Decision {
  const tool = ctx.tools.endCall;
  if (tool) return call(tool.name, { [tool.param]: reason });
  const text = ctx.profile.outbound ? 'Thank you for your time. Goodbye!' : 'Thank you for calling. Goodbye!';
  return say(
    unsaid(
      (v) => (v === 0 ? text : `${pick(['Thanks again.', 'Take care.'], v)} Goodbye!`),
      ctx.history.said,
    ),
  );
}

function firstOpen(states: readonly StepState[]): StepState | undefined {
  return states.find((s) => !s.done);
}

/** How many assistant lines asked the question. */
function askedCount(turns: readonly Turn[], question: string): number {
  return turns.filter((t) => t.role === 'assistant' && lineAsks(t.text, question)).length;
}

function wrapUpCount(ctx: Context): number {
  return ctx.history.turns.filter((t) => t.role === 'assistant' && WRAP_UP.some((q) => lineAsks(t.text, q)))
    .length;
}

/** The next question: the first open step (worded anew if asked before), else a wrap-up. */
function followUp(ctx: Context, states: readonly StepState[]): (variant: number) => string {
  const next = firstOpen(states);
  if (next) {
    const times = askedCount(ctx.history.turns, next.step.question.text);
    return (v) => askAgain(next.step.question.text, times + v);
  }
  const start = wrapUpCount(ctx);
  return (v) => pick(WRAP_UP, start + v);
}

function greeting(ctx: Context): string {
  const { profile } = ctx;
  const states = stepStates(ctx.steps, ctx.history.turns, ctx.history);
  const first = firstOpen(states)?.step.question.text;
  return unsaid(
    (v) =>
      profile.outbound
        ? line([hello(profile, v), purposeLine(profile), first ?? 'Do you have a moment?'])
        : line([hello(profile, v), pick(['How can I help you today?', 'What can I do for you today?'], v)]),
    ctx.history.said,
  );
}

function afterTool(ctx: Context, result: ToolResult): Decision {
  if (ctx.tools.endCall && result.name === ctx.tools.endCall.name) return say('');
  const states = stepStates(ctx.steps, ctx.history.turns, ctx.history);
  const extractor = ctx.tools.extractors.find((e) => e.name === result.name);
  if (extractor && !result.ok) {
    const question = extractor.question.text;
    return say(
      unsaid(
        (v) =>
          line([
            pick(["Sorry, that doesn't seem to be right.", "Hmm, that didn't work."], v),
            askAgain(question, v + 1),
          ]),
        ctx.history.said,
      ),
    );
  }
  const thanks = extractor?.question.topic ? `Thanks, I've noted ${extractor.question.topic}.` : 'Thank you.';
  const next = followUp(ctx, states);
  return say(
    unsaid(
      (v) => line([v % 2 === 0 ? thanks : thanks.replace(/^Thanks/, 'Thank you'), next(v)]),
      ctx.history.said,
    ),
  );
}

function stockAnswer(ctx: Context, kind: Exclude<StockQuestion, 'repeat'>): string[] {
  const { profile } = ctx;
  switch (kind) {
    case 'who':
      return [identity(profile), profile.outbound ? purposeLine(profile) : undefined].filter(
        (s) => s !== undefined,
      );
    case 'purpose':
      return [aboutLine(profile) ?? `${identity(profile)} I'm here to help.`];
    case 'robot':
      return [
        profile.name
          ? `I'm ${profile.name}, an automated assistant${profile.org ? ` for ${profile.org}` : ''}.`
          : "I'm an automated assistant.",
      ];
    case 'how_are_you':
      return ["I'm doing well, thank you for asking."];
  }
}

/** A bookable offer the caller's line asks for ("I'd like to book a cleaning"). */
function requestedOffer(ctx: Context, said: string): Offer | undefined {
  const tokens = new Set(contentTokens(said));
  return ctx.profile.offers.find((o) => o.booking && contentTokens(o.text).some((t) => tokens.has(t)));
}

function respond(ctx: Context, said: string): Decision {
  const { history, tools, profile } = ctx;
  const lastUserAt = history.turns.map((t) => t.role).lastIndexOf('user');
  const before = history.turns.slice(0, lastUserAt);
  const previous = lastAssistant(before) ?? '';
  const states = stepStates(ctx.steps, before, history);
  const pending = [...states]
    .reverse()
    .find((s) => !s.done && s.askedAt >= 0 && lineAsks(previous, s.step.question.text));
  const pendingWhen = lineAsks(previous, WHEN_QUESTION);
  const pendingWrapUp = [...WRAP_UP, WHAT_ELSE].some((q) => lineAsks(previous, q));
  const question = isQuestion(said);
  const answer = yesNo(said);

  if (isEmpty(said))
    return say(
      unsaid(
        (v) => line([pick(SORRY, v), pending ? pending.step.question.text : 'How can I help you?']),
        history.said,
      ),
    );

  // 1. Ending the call: the agent's own reasons, then goodbye.
  if (tools.endCall) {
    const reason = matchReason(said, tools.endCall.custom);
    if (reason) return endCall(ctx, reason);
  }
  if (isGoodbye(said))
    return endCall(ctx, tools.endCall ? fixedReason(tools.endCall, GOODBYE_REASON) : GOODBYE_REASON);

  // 2. A value for an extraction tool: the one just asked for, or an email / phone number given unasked.
  const open = states.filter((s) => !s.done && s.step.tool);
  for (const state of pending?.step.tool ? [pending, ...open.filter((s) => s !== pending)] : open) {
    const tool = state.step.tool;
    if (!tool) continue;
    const asked = state === pending;
    if (!asked && tool.kind !== 'email' && tool.kind !== 'phone') continue;
    const value = extractValue(tool, said, asked);
    if (value !== undefined) return call(tool.name, { [tool.param]: value });
  }

  const stock = stockQuestion(said);
  if (stock === 'repeat')
    return say(
      unsaid(
        (v) => line([pick(['Of course.', 'Sure.', 'No problem.'], v), previous || greeting(ctx)]),
        history.said,
      ),
    );

  // 3. Nothing more wanted after the wrap-up question: the conversation is complete.
  if (pendingWrapUp && answer === 'no' && !question)
    return endCall(ctx, tools.endCall ? fixedReason(tools.endCall, COMPLETE_REASON) : COMPLETE_REASON);

  // 4. What to say before the next question.
  const lead: ((v: number) => string | undefined)[] = [];
  let answered = false;
  let next: ((v: number) => string) | undefined;
  const passage = bestPassage(said, ctx.knowledge);
  const knowledgeAnswer =
    passage && (question ? passage.matched >= 1 : passage.matched >= 2)
      ? quotePassage(passage.passage, said)
      : undefined;
  const pickedChoice =
    pending?.step.question.kind === 'choice'
      ? matchChoice(said, pending.step.question.choices ?? [])
      : undefined;
  const answersPending =
    (pending !== undefined || pendingWhen) &&
    stock === undefined &&
    knowledgeAnswer === undefined &&
    (!question ||
      pickedChoice !== undefined ||
      pendingWhen ||
      (pending?.step.question.kind === 'open' && !pending.step.tool));

  if (stock) lead.push(() => stockAnswer(ctx, stock).join(' '));
  else if (knowledgeAnswer) lead.push(() => knowledgeAnswer);
  else if (answersPending && pendingWhen) {
    const when = answerText(said).replace(/[.!?]+$/, '');
    lead.push((v) =>
      when.split(/\s+/).length <= 8 && when !== ''
        ? `${pick(['Thank you,', 'Thanks,'], v)} I've noted ${when}.`
        : pick(['Thank you, I have noted that.', "Thanks, I've noted that."], v),
    );
  } else if (answersPending && pending) {
    answered = true;
    const q = pending.step.question;
    if (pending.step.tool) {
      // The tool's value was not found in the line (step 2 would have called the tool).
      if (answer === 'no' && pending.step.tool.kind !== 'boolean')
        lead.push((v) => pick(['No problem.', 'That is fine.'], v));
      else {
        answered = false;
        lead.push((v) => pick(SORRY, v));
      }
    } else if (q.kind === 'choice' && pickedChoice)
      lead.push((v) => `${pick(['Got it,', 'Okay,'], v)} ${pickedChoice}.`);
    else if (q.kind === 'yesno' || q.kind === 'choice') {
      if (answer === 'yes') {
        lead.push((v) => pick(['Great.', 'Wonderful.', 'Perfect.'], ctx.seed + v));
        if (q.booking) next = (v) => (v === 0 ? WHEN_QUESTION : askAgain(WHEN_QUESTION, v));
      } else if (answer === 'no')
        lead.push((v) =>
          pick(['No problem.', 'Okay, thanks for letting me know.', 'That is fine.'], ctx.seed + v),
        );
      else if (answer === 'unsure') lead.push((v) => pick(["That's okay.", 'No worries.'], v));
      else lead.push((v) => pick(['I see.', 'Okay.', 'Thank you.'], ctx.seed + v));
    } else lead.push((v) => pick(['Thank you.', 'Thanks.', 'Got it.'], ctx.seed + v));
  } else if (requestedOffer(ctx, said)) {
    const offer = requestedOffer(ctx, said);
    lead.push((v) => `${pick(['Sure,', 'Of course,'], v)} I can help you ${offer?.text ?? 'with that'}.`);
    next = (v) => askAgain(WHEN_QUESTION, v);
  } else if (isGreeting(said)) lead.push((v) => pick(['Hi!', 'Hello!', 'Hi there!'], ctx.seed + v));
  else if (isThanks(said)) lead.push((v) => pick(["You're welcome.", 'My pleasure.'], v));
  else if (question) lead.push((v) => pick(NO_INFO, ctx.seed + v));
  else if (pendingWrapUp && answer === 'yes') {
    lead.push((v) => pick(['Of course.', 'Sure.'], v));
    next = (v) => pick([WHAT_ELSE, 'What would you like to know?'], v);
  } else {
    const about = aboutLine(profile);
    lead.push((v) => pick(['I see.', 'Okay.', 'I understand.'], ctx.seed + v));
    if (about) lead.push(() => about);
  }

  // 5. The next question: the pending one again unless it was answered, else the plan's next.
  if (!next) {
    let after = states;
    if (answered && pending) {
      const declined = pending.step.question.interest === true && answer === 'no';
      const index = states.indexOf(pending);
      after = states.map((s, i) => (s === pending || (declined && i > index) ? { ...s, done: true } : s));
    }
    if (pending && !answered && !pending.done) {
      const again = pending.step.question.text;
      const times = askedCount(before, again);
      next = (v) => askAgain(again, times + v);
    } else next = followUp(ctx, after);
  }
  const reply = next;
  return say(unsaid((v) => line([...lead.map((part) => part(v)), reply(v)]), history.said));
}
