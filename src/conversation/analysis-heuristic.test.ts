import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { REAL_TIME_BOOKING_ACTION_TYPE } from '../actions/index.ts';
import { analyzeConversation } from './analysis.ts';
import type { AnalysisInput } from './analysis/input.ts';
import { ANALYSIS_FIELDS, AnalysisSchema, SUMMARY_MAX_CHARS, type Analysis } from './analysis/schema.ts';
import { createManualClock } from '../core/index.ts';
import { createBuiltinLLM } from '../providers/index.ts';
import { ConversationSession, FALLBACK_REPLY } from './session.ts';

// The heuristic judge (no model, or the builtin): every transcript yields a schema-valid analysis
// with computed aggregates, and each rule gives the verdict the docs describe.

const PROMPT =
  'You are Sam from SunCo. You call homeowners to offer a free solar assessment. ' +
  'Ask if they own their home. Ask for their email address. Book a visit. ' +
  'If they say it is too expensive, explain that the assessment is free.';

const agent = (text: string) => ({ speaker: 'agent' as const, text });
const user = (text: string) => ({ speaker: 'user' as const, text });

const happy: AnalysisInput = {
  agent: { prompt: PROMPT, greeting_message: '', end_call_reasons: ['the caller is not interested'] },
  turns: [
    agent("Hi, this is Sam from SunCo. I'm calling to offer a free solar assessment. Do you own your home?"),
    user('Yes, I do.'),
    agent('Great. Could I have your email address?'),
    user("Sure, it's jane@example.com"),
    agent("Thanks, I've noted your email address. Would you like to book a visit?"),
    user('Yes please, Tuesday at 10am works.'),
    agent("Thank you, I've noted Tuesday at 10am. Is there anything else I can help you with?"),
    user("No, that's all. Thanks, bye!"),
    agent('Thank you for calling. Goodbye!'),
  ],
  endCallReason: 'human_goodbye',
  answeredBy: 'human',
  collectedVariables: { email: { value: 'jane@example.com', collected: true } },
  actions: [{ name: 'book_visit', action_type: REAL_TIME_BOOKING_ACTION_TYPE, success: true }],
};

async function analyze(input: AnalysisInput): Promise<Analysis> {
  const result = await analyzeConversation(input);
  expect(result.judge).toBe('heuristic');
  expect(result.error).toBeUndefined();
  expect(result.attempts).toBe(0);
  expectWellFormed(result.analysis);
  return result.analysis;
}

function expectWellFormed(analysis: Analysis): void {
  expect([...Value.Errors(AnalysisSchema, analysis)]).toEqual([]);
  expect(analysis.call_summary).toBe(true);
  expect(analysis.call_summary_feedback.length).toBeLessThan(500);
  for (const field of ANALYSIS_FIELDS) {
    const value = analysis[field];
    const feedback = analysis[`${field}_feedback`];
    if (field !== 'call_summary' && (value === true || value === 'not_applicable')) expect(feedback).toBe('');
    if (value === false || value === 'partial') expect(feedback).not.toBe('');
  }
}

describe('analyzeConversation: heuristic', () => {
  it('judges a happy call all true or not applicable', async () => {
    const a = await analyze(happy);
    expect(a).toMatchObject({
      persona: true,
      style: true,
      steps: true,
      objections: 'not_applicable',
      objection_not_defined: 'not_applicable',
      knowledge: 'not_applicable',
      appointment: true,
      no_repetition: true,
      call_completion: true,
      answered_by_human: true,
      opted_in: true,
      no_opt_out: true,
      goal: true,
      user_sentiment: true,
      agent_sentiment: true,
      judge_found_partial_or_error: false,
      judge_found_full_error: false,
      all_feedback: '',
    });
    expect(a.call_summary_feedback).toContain('The agent opened with "Hi, this is Sam');
    expect(a.call_summary_feedback).toContain('Collected: email.');
    expect(a.call_summary_feedback).toContain('book_visit (succeeded)');
    // Collected values stay out of the summary.
    expect(a.call_summary_feedback.match(/jane@example\.com/g) ?? []).toHaveLength(0);
  });

  it('is deterministic', async () => {
    expect((await analyzeConversation(happy)).analysis).toEqual((await analyzeConversation(happy)).analysis);
  });

  it('records an opt-out', async () => {
    const a = await analyze({
      ...happy,
      turns: [
        happy.turns[0]!,
        user('Stop calling me and take me off your list.'),
        agent('Of course. Goodbye!'),
      ],
      endCallReason: 'custom_end_call',
      customEndCallReason: 'the caller asks to be removed from the list',
      collectedVariables: null,
      actions: [],
    });
    expect(a).toMatchObject({
      no_opt_out: false,
      opted_in: false,
      goal: false,
      user_sentiment: false,
      call_completion: true,
      appointment: 'not_applicable',
      judge_found_full_error: true,
      judge_found_partial_or_error: true,
    });
    expect(a.no_opt_out_feedback).toContain('Stop calling me');
    expect(a.all_feedback).toContain('no_opt_out: The person asked not to be contacted');
  });

  it('judges a hostile caller and a rude agent', async () => {
    const a = await analyze({
      ...happy,
      turns: [
        happy.turns[0]!,
        user('This is a waste of my time, you people are useless.'),
        agent('Whatever, calm down.'),
        user('Terrible. Bye.'),
      ],
      endCallReason: 'human_goodbye',
      actions: [],
      collectedVariables: {},
    });
    expect(a.user_sentiment).toBe(false);
    expect(a.agent_sentiment).toBe(false);
    expect(a.agent_sentiment_feedback).toContain('Whatever, calm down.');
    expect(a.goal).toBe('partial');
    expect(a.opted_in).toBe(false);
    expect(a.judge_found_full_error).toBe(true);
  });

  it('judges a voicemail with no user turns', async () => {
    const a = await analyze({
      ...happy,
      turns: [agent('Hi, this is Sam from SunCo. Please call us back at your convenience.')],
      endCallReason: 'voicemail_message_left',
      answeredBy: 'machine',
      collectedVariables: null,
      actions: [],
    });
    expect(a).toMatchObject({
      answered_by_human: false,
      call_completion: false,
      goal: false,
      user_sentiment: 'partial',
      steps: 'not_applicable',
      opted_in: false,
      no_opt_out: true,
    });
    expect(a.answered_by_human_feedback).toContain('machine');
    expect(a.call_summary_feedback).toContain('A machine answered.');
    expect(a.call_summary_feedback).toContain('a voicemail message was left');
  });

  it('judges an empty transcript', async () => {
    const a = await analyze({ agent: {}, turns: [], endCallReason: null, answeredBy: null });
    expect(a).toMatchObject({
      persona: 'not_applicable',
      style: null,
      answered_by_human: false,
      call_completion: false,
      goal: false,
      agent_sentiment: 'partial',
      call_summary_feedback: 'No conversation took place.',
    });
    expect(a.call_completion_feedback).toBe('The call ended without a recorded reason.');
  });

  it('finds repetition, missed steps, and a failed booking', async () => {
    const a = await analyze({
      ...happy,
      turns: [
        happy.turns[0]!,
        user('Hmm.'),
        agent(FALLBACK_REPLY),
        user('What?'),
        agent(FALLBACK_REPLY),
        user('Okay, book it.'),
        agent('Sorry, booking failed. Goodbye.'),
      ],
      endCallReason: 'agent_goodbye',
      actions: [
        {
          name: 'book_visit',
          action_type: REAL_TIME_BOOKING_ACTION_TYPE,
          success: false,
          error_message: 'no slots',
        },
      ],
    });
    expect(a.no_repetition).toBe(false);
    expect(a.no_repetition_feedback).toContain(FALLBACK_REPLY);
    expect(a.steps).toBe(false);
    expect(a.steps_feedback).toContain('Ask for their email address');
    expect(a.appointment).toBe(false);
    expect(a.appointment_feedback).toBe('The booking action book_visit failed: no slots');
    expect(a.goal).toBe('partial');
  });

  it('judges objections the prompt defines and ones it does not', async () => {
    const a = await analyze({
      ...happy,
      turns: [
        happy.turns[0]!,
        user("Sounds too expensive, and honestly I'm busy."),
        agent('The assessment is free, it only takes twenty minutes.'),
        user('I already have solar panels.'),
        agent(FALLBACK_REPLY),
        user('Bye.'),
      ],
      actions: [],
    });
    // "too expensive" is handled in the prompt and answered; "already have" is not, and the agent
    // had no answer to it.
    expect(a.objections).toBe(false);
    expect(a.objections_feedback).toContain('already has one');
    expect(a.objection_not_defined).toBe(false);

    const answered = await analyze({
      ...happy,
      turns: [
        happy.turns[0]!,
        user("It's too expensive."),
        agent('The assessment is free.'),
        user('Ok, bye.'),
      ],
      actions: [],
    });
    expect(answered.objections).toBe(true);
    expect(answered.objection_not_defined).toBe('not_applicable');
  });

  it('judges persona, style and knowledge', async () => {
    const a = await analyze({
      ...happy,
      turns: [
        agent("Hi, I'm Max from SunCo. Our office opens at nine and closes at five on weekdays."),
        user('Thanks.'),
        agent('**Hours:**\n- Mon: 9-5'),
      ],
      knowledgePassages: ['The office opens at nine and closes at five on weekdays.'],
    });
    expect(a.persona).toBe(false);
    expect(a.persona_feedback).toBe('The agent called itself Max, but the prompt names it Sam.');
    expect(a.style).toBe(false);
    expect(a.knowledge).toBe(true);

    const unused = await analyze({ ...happy, knowledgePassages: ['Parking is behind the building.'] });
    expect(unused.knowledge).toBeNull();
    expect(unused.knowledge_feedback).not.toBe('');
  });

  it('keeps the summary and feedback short on huge transcripts', async () => {
    const long = 'word '.repeat(400);
    const a = await analyze({
      ...happy,
      turns: [agent(long), user(`Stop calling ${long}`), agent(long), agent(long)],
    });
    expect(a.call_summary_feedback.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    for (const field of ANALYSIS_FIELDS) expect(a[`${field}_feedback`].length).toBeLessThanOrEqual(500);
  });

  it('analyzes a conversation the engine held with the builtin model', async () => {
    const llm = createBuiltinLLM();
    const agentConfig = {
      prompt:
        'You are Sam from SunCo. You call homeowners to offer a free solar assessment. ' +
        'Ask if they own their home and book a visit.',
      greeting_message_mode: 'agent_dynamic' as const,
    };
    const session = new ConversationSession({
      agent: agentConfig,
      llm,
      style: 'voice',
      clock: createManualClock(),
    });
    await session.start();
    await session.respond('Yes, I do own it.');
    const bye = await session.respond('Goodbye!');
    expect(bye.ended).toEqual({ kind: 'human_goodbye' });
    const result = await analyzeConversation(
      { agent: agentConfig, turns: session.turns, endCallReason: 'human_goodbye', answeredBy: 'human' },
      { llm },
    );
    expect(result.judge).toBe('heuristic');
    expectWellFormed(result.analysis);
    expect(result.analysis).toMatchObject({
      persona: true,
      call_completion: true,
      answered_by_human: true,
      no_repetition: true,
      no_opt_out: true,
      opted_in: true,
    });
  });
});
