import { Value } from '@sinclair/typebox/value';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestLLMServer, type TestLLMServer } from '../../test/llm-server/index.ts';
import { createManualClock } from '../core/index.ts';
import { LLMError, createBuiltinLLM, createOpenAILLM } from '../providers/index.ts';
import { createScriptedLLM } from '../providers/testing/index.ts';
import { analyzeConversation } from './analysis.ts';
import type { AnalysisInput } from './analysis/input.ts';
import { ANALYSIS_TOOL } from './analysis/judge-prompt.ts';
import { AnalysisSchema, type AnalysisFields } from './analysis/schema.ts';

// The model judge: one required tool call whose arguments are the analysis; one retry when the
// answer is unusable; the heuristic's analysis (with `error`) when both attempts fail.

const input: AnalysisInput = {
  agent: {
    prompt: 'You are Mia at Bright Smile Dental. Help callers book a cleaning.',
    end_call_reasons: ['wrong number'],
  },
  turns: [
    { speaker: 'agent', text: 'Hi, this is Mia from Bright Smile Dental. How can I help you today?' },
    { speaker: 'user', text: "I'd like to book a cleaning, thanks." },
    { speaker: 'agent', text: 'Sure, what day and time would suit you?' },
    { speaker: 'user', text: 'Friday at 3pm. Bye!' },
  ],
  endCallReason: 'human_goodbye',
  answeredBy: 'human',
  collectedVariables: { day: { value: 'Friday 3pm', collected: true } },
  actions: [],
};

/** A judgement as a model would send it. */
function judgement(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const fields: AnalysisFields = {
    persona: true,
    persona_feedback: '',
    style: true,
    style_feedback: '',
    steps: true,
    steps_feedback: '',
    objections: 'not_applicable',
    objections_feedback: '',
    objection_not_defined: 'not_applicable',
    objection_not_defined_feedback: '',
    knowledge: 'not_applicable',
    knowledge_feedback: '',
    appointment: false,
    appointment_feedback: 'The caller asked for a cleaning, but no booking was made.',
    no_repetition: true,
    no_repetition_feedback: '',
    call_completion: true,
    call_completion_feedback: '',
    answered_by_human: true,
    answered_by_human_feedback: '',
    opted_in: true,
    opted_in_feedback: '',
    no_opt_out: true,
    no_opt_out_feedback: '',
    goal: 'partial',
    goal_feedback: 'The time was noted but not booked.',
    user_sentiment: true,
    user_sentiment_feedback: '',
    agent_sentiment: true,
    agent_sentiment_feedback: '',
    call_summary: true,
    call_summary_feedback: 'A caller asked to book a cleaning on Friday at 3pm; the agent noted it.',
  };
  return { ...fields, ...overrides };
}

const call = (args: Record<string, unknown> | string) => ({
  toolCalls: [{ name: ANALYSIS_TOOL, arguments: args }],
});

describe('analyzeConversation: model judge', () => {
  it('asks for one required tool call and uses its answer, computing the aggregates', async () => {
    const llm = createScriptedLLM([
      // A model's own aggregates and extra keys are ignored.
      call(judgement({ judge_found_full_error: false, all_feedback: 'bogus', extra: 1 })),
    ]);
    const clock = createManualClock(1_000);
    const result = await analyzeConversation(input, { llm, model: 'judge-model', clock });
    expect(result).toMatchObject({ judge: 'llm', attempts: 1, durationMs: 0 });
    expect(result.error).toBeUndefined();
    expect(Value.Check(AnalysisSchema, result.analysis)).toBe(true);
    expect(result.analysis).toMatchObject({
      appointment: false,
      goal: 'partial',
      judge_found_partial_or_error: true,
      judge_found_full_error: true,
      all_feedback:
        'appointment: The caller asked for a cleaning, but no booking was made.\n' +
        'goal: The time was noted but not booked.',
    });
    expect(result.analysis).not.toHaveProperty('extra');

    const [request] = llm.requests;
    expect(request?.toolChoice).toBe('required');
    expect(request?.model).toBe('judge-model');
    expect(request?.tools?.map((t) => t.name)).toEqual([ANALYSIS_TOOL]);
    expect((request?.tools?.[0]?.parameters as { required: string[] }).required).toHaveLength(32);
    expect(request?.messages[0]?.content).toContain('objection_not_defined');
    const callText = request?.messages[1]?.content ?? '';
    expect(callText).toContain('bot: Hi, this is Mia');
    expect(callText).toContain('human: Friday at 3pm. Bye!');
    expect(callText).toContain('End-call reasons: wrong number');
    expect(callText).toContain('End-call reason: human_goodbye');
    expect(callText).toContain('- day = "Friday 3pm"');
  });

  it('mends common spellings and trims feedback the spec wants empty', async () => {
    const llm = createScriptedLLM([
      call(
        judgement({
          persona: 'True',
          persona_feedback: 'Fine.',
          knowledge: 'N/A',
          user_sentiment: 'partial',
          user_sentiment_feedback: 'x'.repeat(900),
          call_summary: false,
          call_summary_feedback: '',
        }),
      ),
    ]);
    const { analysis, judge } = await analyzeConversation(input, { llm });
    expect(judge).toBe('llm');
    expect(analysis).toMatchObject({ persona: true, persona_feedback: '', knowledge: 'not_applicable' });
    expect(analysis.user_sentiment_feedback.length).toBeLessThanOrEqual(500);
    // An empty summary is filled from the transcript; call_summary is always true.
    expect(analysis.call_summary).toBe(true);
    expect(analysis.call_summary_feedback).toContain('The agent opened with');
  });

  it('retries once when the answer is invalid, telling the model what was wrong', async () => {
    const llm = createScriptedLLM([call(judgement({ goal: 'maybe' })), call(judgement())]);
    const result = await analyzeConversation(input, { llm });
    expect(result).toMatchObject({ judge: 'llm', attempts: 2 });
    expect(result.error).toBeUndefined();
    expect(llm.requests).toHaveLength(2);
    const retry = llm.requests[1]?.messages.at(-1);
    expect(retry?.role).toBe('user');
    expect(retry?.content).toContain('goal');
  });

  it('retries when the model answers in text instead of calling the tool', async () => {
    const llm = createScriptedLLM([{ text: 'Looks good to me.' }, call(judgement())]);
    const result = await analyzeConversation(input, { llm });
    expect(result).toMatchObject({ judge: 'llm', attempts: 2 });
  });

  it('falls back to the heuristic with an error when both answers are invalid', async () => {
    const llm = createScriptedLLM([call('{"persona": tru'), call(judgement({ no_opt_out: 'partial' }))]);
    const result = await analyzeConversation(input, { llm });
    const heuristic = await analyzeConversation(input);
    expect(result.judge).toBe('heuristic');
    expect(result.attempts).toBe(2);
    expect(result.error).toMatch(/^model judge failed after 2 attempts: invalid analysis: no_opt_out/);
    expect(result.analysis).toEqual(heuristic.analysis);
    expect(Value.Check(AnalysisSchema, result.analysis)).toBe(true);
  });

  it('falls back to the heuristic when the model fails', async () => {
    const down = new LLMError('service down', 'llm_unavailable', true);
    const llm = createScriptedLLM([{ error: down }, { error: down }]);
    const result = await analyzeConversation(input, { llm });
    expect(result).toMatchObject({ judge: 'heuristic', attempts: 2 });
    expect(result.error).toContain('model error (llm_unavailable: service down)');
    expect(Value.Check(AnalysisSchema, result.analysis)).toBe(true);
  });

  it('recovers when the model fails once', async () => {
    const llm = createScriptedLLM([{ error: new LLMError('slow', 'llm_timeout', true) }, call(judgement())]);
    expect(await analyzeConversation(input, { llm })).toMatchObject({ judge: 'llm', attempts: 2 });
  });

  it('stops at an abort', async () => {
    const controller = new AbortController();
    controller.abort();
    const llm = createScriptedLLM([call(judgement())]);
    const result = await analyzeConversation(input, { llm, signal: controller.signal });
    expect(result).toMatchObject({ judge: 'heuristic', attempts: 0, error: 'analysis aborted' });
    expect(llm.requests).toHaveLength(0);
  });

  it('uses the heuristic with the builtin model, without asking it', async () => {
    const result = await analyzeConversation(input, { llm: createBuiltinLLM() });
    expect(result).toMatchObject({ judge: 'heuristic', attempts: 0 });
    expect(result.error).toBeUndefined();
  });
});

describe('analyzeConversation: model judge over the wire (openai adapter)', () => {
  let server: TestLLMServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('gets the analysis from a required tool call, retrying a malformed one', async () => {
    server = await createTestLLMServer({ apiKey: 'sk-test' });
    const llm = createOpenAILLM({
      baseUrl: server.baseUrl,
      apiKey: 'sk-test',
      model: 'gpt-test',
      maxRetries: 0,
    });
    server.script(
      { toolCalls: [{ name: ANALYSIS_TOOL, arguments: '{"persona": tr' }] },
      { toolCalls: [{ name: ANALYSIS_TOOL, arguments: judgement() }] },
    );
    const result = await analyzeConversation(input, { llm, model: 'judge-model' });
    expect(result).toMatchObject({ judge: 'llm', attempts: 2 });
    expect(result.analysis.goal).toBe('partial');
    expect(result.analysis.judge_found_full_error).toBe(true);

    const body = server.requests[0]?.body as {
      model: string;
      tool_choice: string;
      tools: { type: string; function: { name: string; parameters: { required: string[] } } }[];
    };
    expect(body.model).toBe('judge-model');
    expect(body.tool_choice).toBe('required');
    expect(body.tools[0]?.function.name).toBe(ANALYSIS_TOOL);
    expect(body.tools[0]?.function.parameters.required).toContain('objection_not_defined_feedback');
  });
});
