import { contentStems, isNegated, normalize, stemMatches, stemSet, words } from './text.ts';

// The offline judge of a simulation (docs/builtin-model.md, "Simulation judge"): each criterion
// is decided by the first rule whose words it contains, else by word overlap with what the agent
// said. Deterministic; English only; a stand-in for a real model, with its limits.

export interface JudgeTurn {
  speaker: 'agent' | 'user';
  text: string;
}

export interface JudgeInput {
  /** The simulated caller's persona and goal. */
  prompt: string;
  success_criteria: readonly string[];
  call_success_type: 'all' | 'any';
  turns: readonly JudgeTurn[];
  /**
   * What ended the conversation: `agent` or `user`/`caller` (who hung up), or the reason the agent
   * gave when it ended the call (`wrong number`, `user said goodbye`...). Null or absent: nobody
   * ended it (the turn limit, or it was cut off).
   */
  endedBy?: string | null;
  hitMaxTurns: boolean;
}

export interface CriterionResult {
  criterion: string;
  passed: boolean;
  reason: string;
}

const RUDE =
  /\b(?:shut up|stupid|idiot|dumb|whatever|calm down|not my problem|i don't care|your problem|go away|get lost|fuck\w*|shit|damn|crap)\b/;
const EMPATHY =
  /\b(?:sorry|apologi[sz]e|apologies|understand|i hear you|frustrat\w*|that must be|i see why|my fault)\b/;
const POSITIVE =
  /\b(?:thanks|thank you|great|perfect|wonderful|awesome|excellent|helpful|appreciate\w*|glad|happy|lovely|brilliant|amazing)\b/;
const NEGATIVE =
  /\b(?:ridiculous|terrible|awful|horrible|useless|angry|annoy\w*|frustrat\w*|unacceptable|waste of time|not happy|not helpful|worst|disappoint\w*|hate)\b/;
const GREETING =
  /\b(?:hi|hello|hey|welcome|good (?:morning|afternoon|evening)|thanks? (?:you )?for calling|you've reached|this is|my name is|speaking)\b/;
const TRANSFER =
  /\b(?:transfer\w*|connect(?:ing)? you|put you through|hand you over|a (?:real |live )?(?:person|human)|colleague|representative|team member|specialist|manager|someone from)\b/;
const BOOKING = /\b(?:book\w*|appointment\w*|schedul\w*|reserv\w*|slot\w*|availab\w*)\b/;
const BOOKING_STEMS = ['book', 'appointment', 'schedul', 'reserv'];
const FORMATTING = /(?:^|\n)\s*(?:[-*•]\s|\d+\.\s|#{1,6}\s)|\*\*|```/;
const SHORT_REPLY_MAX_WORDS = 60;

const quote = (text: string, max = 80) => {
  const t = text.replace(/\s+/g, ' ').trim();
  return `"${t.length > max ? `${t.slice(0, max - 1)}…` : t}"`;
};

const USER_ENDINGS = new Set([
  'user',
  'caller',
  'human',
  'person',
  'customer',
  'user_hangup',
  'remote_hangup',
]);

interface Facts {
  agent: string[];
  user: string[];
  agentStems: Set<string>;
  /** The agent spoke after the caller's first line. */
  answeredUser: boolean;
  ended: boolean;
  /** An end reason the agent gave (not a bare `agent`/`user`). */
  endReason: string | null;
  endedByUser: boolean;
  endedBy: string | null;
  hitMaxTurns: boolean;
}

function facts(input: JudgeInput): Facts {
  const agent = input.turns.filter((t) => t.speaker === 'agent').map((t) => t.text);
  const user = input.turns.filter((t) => t.speaker === 'user').map((t) => t.text);
  const endedBy = input.endedBy?.trim() || null;
  const lower = endedBy?.toLowerCase() ?? null;
  return {
    agent,
    user,
    agentStems: stemSet(agent.join(' ')),
    answeredUser: input.turns.some(
      (t, i) => t.speaker === 'agent' && input.turns.slice(0, i).some((u) => u.speaker === 'user'),
    ),
    ended: endedBy !== null && !input.hitMaxTurns,
    endReason: lower !== null && lower !== 'agent' && !USER_ENDINGS.has(lower) ? endedBy : null,
    endedByUser: lower !== null && USER_ENDINGS.has(lower),
    endedBy,
    hitMaxTurns: input.hitMaxTurns,
  };
}

type Verdict = { passed: boolean; reason: string };
type Rule = { test: RegExp; judge: (criterion: string, f: Facts) => Verdict };

const noAgent: Verdict = { passed: false, reason: 'The agent said nothing.' };

/** Which content words of `text` the agent used: half of them (at least one) must appear. */
function overlap(
  text: string,
  haystack: ReadonlySet<string>,
): { found: string[]; missing: string[]; enough: boolean } {
  const targets = contentStems(text);
  const found = targets.filter((t) => stemMatches(t, haystack));
  const missing = targets.filter((t) => !found.includes(t));
  return { found, missing, enough: targets.length > 0 && found.length >= Math.ceil(targets.length / 2) };
}

function endedVerdict(f: Facts): Verdict {
  if (f.hitMaxTurns) return { passed: false, reason: 'The conversation hit the turn limit before it ended.' };
  if (!f.ended) return { passed: false, reason: 'The conversation did not end; it was cut off.' };
  return { passed: true, reason: `The conversation ended (${f.endedBy}) before the turn limit.` };
}

const RULES: Rule[] = [
  // The caller's satisfaction.
  {
    test: /\b(?:satisf\w*|pleased|csat)\b|\bcaller\b.*\bhappy\b/,
    judge: (_c, f) => {
      const last = f.user.slice(-2);
      if (last.length === 0) return { passed: false, reason: 'The caller said nothing.' };
      const negative = f.user.find((t) => NEGATIVE.test(normalize(t)));
      const close = last.join(' ');
      if (negative && !POSITIVE.test(normalize(close)))
        return { passed: false, reason: `The caller was unhappy: ${quote(negative)}.` };
      return POSITIVE.test(normalize(close))
        ? { passed: true, reason: `The caller ended on a positive note: ${quote(close)}.` }
        : { passed: false, reason: 'The caller showed no satisfaction at the end.' };
    },
  },
  // The agent ends the call for a stated reason.
  {
    test: /\bends? the (?:call|conversation)\b.*?\b(?:because|for|when|as|after|since|if)\b/,
    judge: (criterion, f) => {
      if (f.hitMaxTurns)
        return { passed: false, reason: 'The conversation hit the turn limit; the agent did not end it.' };
      if (f.endedBy === null) return { passed: false, reason: 'Nobody ended the call.' };
      if (f.endedByUser) return { passed: false, reason: 'The caller ended the call, not the agent.' };
      const wanted = normalize(criterion).replace(
        /^.*?\bends? the (?:call|conversation)\b.*?\b(?:because|for|when|as|after|since|if)\b\s*/,
        '',
      );
      if (f.endReason === null)
        return { passed: true, reason: 'The agent ended the call (its reason was not recorded).' };
      const match = overlap(wanted, stemSet(f.endReason));
      return match.enough || normalize(f.endReason) === normalize(wanted)
        ? { passed: true, reason: `The agent ended the call with the reason "${f.endReason}".` }
        : { passed: false, reason: `The agent ended the call for another reason: "${f.endReason}".` };
    },
  },
  // The conversation ends, is completed, resolved...
  {
    test: /\b(?:ends? the (?:call|conversation)|(?:natural|proper|clear|polite) (?:end|close|ending)|hangs? up|says? goodbye|wraps? up|closes? the (?:call|conversation)|complet\w*|finish\w*|resolv\w*|accomplish\w*|achiev\w*)\b/,
    judge: (_c, f) => endedVerdict(f),
  },
  // Politeness under pressure.
  {
    test: /\b(?:de-?escalat\w*|acknowledg\w* .*frustrat\w*|empath\w*|apologi\w*|calms? (?:the caller|them) down)\b/,
    judge: (_c, f) => {
      if (f.agent.length === 0) return noAgent;
      const rude = f.agent.find((t) => RUDE.test(normalize(t)));
      if (rude) return { passed: false, reason: `The agent was rude: ${quote(rude)}.` };
      const kind = f.agent.find((t) => EMPATHY.test(normalize(t)));
      return kind
        ? { passed: true, reason: `The agent acknowledged the caller: ${quote(kind)}.` }
        : { passed: false, reason: "The agent never apologised or acknowledged the caller's feelings." };
    },
  },
  {
    test: /\b(?:polite\w*|courteous|professional\w*|respectful\w*|calm|patient\w*|friendly|rude\w*)\b/,
    judge: (_c, f) => {
      if (f.agent.length === 0) return noAgent;
      const rude = f.agent.find((t) => RUDE.test(normalize(t)));
      return rude
        ? { passed: false, reason: `The agent was rude: ${quote(rude)}.` }
        : { passed: true, reason: "No rude or dismissive words in the agent's lines." };
    },
  },
  // Repetition.
  {
    test: /\b(?:repeat\w*|repetit\w*|same (?:sentence|phrase|line|thing))\b/,
    judge: (criterion, f) => {
      const seen = new Set<string>();
      let repeated: string | null = null;
      for (const t of f.agent) {
        const key = words(t).join(' ');
        if (key.split(' ').length >= 3 && seen.has(key)) repeated ??= t;
        seen.add(key);
      }
      const wantsNone = isNegated(criterion) || /\b(?:avoid|vary|varies)\b/.test(normalize(criterion));
      if (!wantsNone) {
        return repeated
          ? { passed: true, reason: `The agent repeated ${quote(repeated)}.` }
          : { passed: false, reason: 'The agent never repeated a line.' };
      }
      return repeated
        ? { passed: false, reason: `The agent said ${quote(repeated)} more than once.` }
        : { passed: true, reason: 'The agent never said the same line twice.' };
    },
  },
  // Spoken style.
  {
    test: /\b(?:short|concise|brief|natural\w*|conversational|formatting|lists?|markdown|bullet\w*)\b/,
    judge: (_c, f) => {
      if (f.agent.length === 0) return noAgent;
      const long = f.agent.find((t) => words(t).length > SHORT_REPLY_MAX_WORDS);
      if (long)
        return {
          passed: false,
          reason: `An agent reply ran over ${SHORT_REPLY_MAX_WORDS} words: ${quote(long)}.`,
        };
      const formatted = f.agent.find((t) => FORMATTING.test(t));
      if (formatted)
        return { passed: false, reason: `An agent reply used text formatting: ${quote(formatted)}.` };
      return {
        passed: true,
        reason: `Every agent reply was under ${SHORT_REPLY_MAX_WORDS} words, without formatting.`,
      };
    },
  },
  // Steering back to the topic.
  {
    test: /\b(?:steers?|redirect\w*|brings? (?:the conversation |it |them )?back|back on (?:track|topic)|stays? on (?:topic|track)|refocus\w*)\b/,
    judge: (criterion, f) => {
      const later = f.agent.slice(1);
      if (f.user.length === 0 || later.length === 0)
        return { passed: false, reason: 'The agent never replied to the caller.' };
      const topic = normalize(criterion).replace(/^.*?\b(?:back to|on topic|on track|towards?|to)\b/, '');
      const match = overlap(topic, stemSet(later.join(' ')));
      if (match.enough)
        return {
          passed: true,
          reason: `After the caller spoke, the agent came back to ${match.found.join(', ')}.`,
        };
      const question = later.find((t) => t.includes('?'));
      return question
        ? {
            passed: true,
            reason: `After the caller spoke, the agent led on with a question: ${quote(question)}.`,
          }
        : { passed: false, reason: 'The agent never brought the conversation back to its purpose.' };
    },
  },
  // Keeping the conversation going.
  {
    test: /\b(?:follow[- ]?up|asks? (?:more|further|clarifying)|probing|move\w* the conversation forward)\b/,
    judge: (_c, f) => {
      const questions = f.agent.filter((t) => t.includes('?'));
      return questions.length >= 2
        ? { passed: true, reason: `The agent asked ${questions.length} questions.` }
        : {
            passed: false,
            reason: `The agent asked ${questions.length === 0 ? 'no question' : 'only one question'}.`,
          };
    },
  },
  // Greeting.
  {
    test: /\b(?:greet\w*|introduc\w*|welcom\w*)\b/,
    judge: (_c, f) => {
      const first = f.agent[0];
      if (first === undefined) return noAgent;
      return GREETING.test(normalize(first))
        ? { passed: true, reason: `The agent opened with a greeting: ${quote(first)}.` }
        : { passed: false, reason: `The agent's first line was not a greeting: ${quote(first)}.` };
    },
  },
  // A transfer to a person.
  {
    test: /\b(?:transfer\w*|human|real person|live person|representative|operator|manager|colleague)\b/,
    judge: (_c, f) => {
      const line = f.agent.find((t) => TRANSFER.test(normalize(t)));
      return line
        ? { passed: true, reason: `The agent spoke of handing over: ${quote(line)}.` }
        : { passed: false, reason: 'The agent never offered a transfer to a person.' };
    },
  },
  // Booking.
  {
    test: /\b(?:book\w*|appointment\w*|schedul\w*|reserv\w*)\b/,
    judge: (criterion, f) => {
      const line = f.agent.find((t) => BOOKING.test(normalize(t)));
      if (!line) return { passed: false, reason: 'The agent never spoke of booking or scheduling.' };
      // Booking words count as said once the agent spoke of booking; the rest must match as usual.
      const match = overlap(criterion, new Set([...f.agentStems, ...BOOKING_STEMS]));
      if (!match.enough)
        return {
          passed: false,
          reason: `The agent spoke of booking but never mentioned ${match.missing.join(', ')}.`,
        };
      return { passed: true, reason: `The agent spoke of booking: ${quote(line)}.` };
    },
  },
];

/** The default: the agent's lines contain the criterion's content words (or, negated, do not). */
function byOverlap(criterion: string, f: Facts): Verdict {
  if (f.agent.length === 0) return noAgent;
  const match = overlap(criterion, f.agentStems);
  if (match.found.length + match.missing.length === 0) {
    // Nothing specific to look for: the agent must at least have answered the caller.
    return f.answeredUser
      ? {
          passed: true,
          reason: 'The agent replied to the caller (the criterion names nothing more specific).',
        }
      : { passed: false, reason: 'The agent never replied to the caller.' };
  }
  if (isNegated(criterion)) {
    return match.found.length === 0
      ? { passed: true, reason: `The agent never mentioned ${match.missing.join(', ')}.` }
      : { passed: false, reason: `The agent mentioned ${match.found.join(', ')}.` };
  }
  return match.enough
    ? {
        passed: true,
        reason: `The agent's lines mention ${match.found.join(', ')}${match.missing.length > 0 ? ` (not ${match.missing.join(', ')})` : ''}.`,
      }
    : {
        passed: false,
        reason: `The agent's lines miss ${match.missing.join(', ')}${match.found.length > 0 ? ` (only ${match.found.join(', ')})` : ''}.`,
      };
}

const HEURISTIC_PREFIX = 'Heuristic: ';

/** One verdict per criterion, in order. */
export function heuristicVerdicts(input: JudgeInput): CriterionResult[] {
  const f = facts(input);
  return input.success_criteria.map((criterion) => {
    const text = normalize(criterion);
    const rule = RULES.find((r) => r.test.test(text));
    const verdict = rule ? rule.judge(criterion, f) : byOverlap(criterion, f);
    return { criterion, passed: verdict.passed, reason: `${HEURISTIC_PREFIX}${verdict.reason}` };
  });
}

/** `all`: every criterion passed (and there is at least one); `any`: at least one did. */
export function casePassed(results: readonly { passed: boolean }[], type: 'all' | 'any'): boolean {
  if (results.length === 0) return false;
  return type === 'all' ? results.every((r) => r.passed) : results.some((r) => r.passed);
}
