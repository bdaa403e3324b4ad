import { afterEach, describe, expect, it } from 'vitest';
import { createTestLLMServer, type TestLLMServer } from '../../test/llm-server/index.ts';
import { LLMError, createBuiltinLLM, createOpenAILLM } from '../providers/index.ts';
import { createScriptedLLM, type ScriptedReply } from '../providers/testing/index.ts';
import { VERDICTS_TOOL, judgeCase, type JudgeInput } from './index.ts';

const turns: JudgeInput['turns'] = [
  { speaker: 'agent', text: 'Hi, this is Mia from Bright Smile Dental. How can I help you today?' },
  { speaker: 'user', text: "Hi, I'd like to book a cleaning." },
  { speaker: 'agent', text: 'Sure, I can help you book an appointment. What day and time would suit you?' },
  { speaker: 'user', text: 'Tuesday at 10am works for me.' },
  { speaker: 'agent', text: "Thank you, I've noted Tuesday at 10am. Could I have your email address?" },
  { speaker: 'user', text: "It's jane.doe@example.com. Thanks, goodbye!" },
  { speaker: 'agent', text: 'Thanks, I have noted your email address. Goodbye!' },
];

const base: JudgeInput = {
  prompt: 'You are calling Bright Smile Dental to book a cleaning.',
  success_criteria: ['The agent greets the caller', 'The agent asks for the caller email address'],
  call_success_type: 'all',
  turns,
  endedBy: 'user said goodbye',
  hitMaxTurns: false,
};

const verdicts = (
  list: { passed: boolean; reason?: string; criterion?: string }[],
  extra = {},
): ScriptedReply => ({
  toolCalls: [
    {
      name: VERDICTS_TOOL,
      arguments: {
        verdicts: list.map((v, i) => ({
          criterion: v.criterion ?? base.success_criteria[i] ?? 'x',
          passed: v.passed,
          reason: v.reason ?? 'Seen in the transcript.',
        })),
        ...extra,
      },
    },
  ],
});

describe('judgeCase with a model', () => {
  it('computes passed from the verdicts: all vs any', async () => {
    const mixed = verdicts([{ passed: true }, { passed: false, reason: 'Never asked.' }]);
    const all = await judgeCase(base, { llm: createScriptedLLM([mixed]) });
    expect(all).toEqual({
      passed: false,
      judge: 'llm',
      criteria_results: [
        { criterion: 'The agent greets the caller', passed: true, reason: 'Seen in the transcript.' },
        { criterion: 'The agent asks for the caller email address', passed: false, reason: 'Never asked.' },
      ],
    });
    const any = await judgeCase({ ...base, call_success_type: 'any' }, { llm: createScriptedLLM([mixed]) });
    expect(any.passed).toBe(true);
    expect(any.judge).toBe('llm');
  });

  it("ignores a model's own overall verdict", async () => {
    const llm = createScriptedLLM([verdicts([{ passed: false }, { passed: false }], { passed: true })]);
    const result = await judgeCase({ ...base, call_success_type: 'any' }, { llm });
    expect(result.passed).toBe(false);
    expect(result.judge).toBe('llm');
  });

  it('asks with a required tool call listing one verdict per criterion', async () => {
    const llm = createScriptedLLM([verdicts([{ passed: true }, { passed: true }])]);
    const result = await judgeCase(base, { llm, model: 'judge-model' });
    expect(result.passed).toBe(true);
    const request = llm.requests[0];
    expect(request?.toolChoice).toBe('required');
    expect(request?.model).toBe('judge-model');
    const tool = request?.tools?.[0];
    expect(tool?.name).toBe(VERDICTS_TOOL);
    expect(tool?.parameters).toMatchObject({ properties: { verdicts: { minItems: 2, maxItems: 2 } } });
    const user = request?.messages[1]?.content ?? '';
    expect(user).toContain('1. The agent greets the caller');
    expect(user).toContain('2. The agent asks for the caller email address');
    expect(user).toContain("User: Hi, I'd like to book a cleaning.");
    expect(user).toContain('You are calling Bright Smile Dental');
    expect(user).toContain('The conversation ended: user said goodbye.');
  });

  it('retries once when a verdict is missing, stating the problem', async () => {
    const llm = createScriptedLLM([
      verdicts([{ passed: true }]),
      verdicts([{ passed: true }, { passed: true }]),
    ]);
    const result = await judgeCase(base, { llm });
    expect(result).toMatchObject({ passed: true, judge: 'llm' });
    expect(result.error).toBeUndefined();
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]?.messages.at(-1)?.content).toContain('1 verdicts for 2 criteria');
  });

  it('falls back to the heuristic with error after two unusable answers', async () => {
    const llm = createScriptedLLM([
      verdicts([{ passed: true }, { passed: true }, { passed: true }]),
      verdicts([{ passed: true }, { passed: true, reason: ' ' }]),
    ]);
    const result = await judgeCase(base, { llm });
    expect(result.judge).toBe('heuristic');
    expect(result.error).toMatch(/model judge failed after 2 attempts: verdict 2 has an empty reason/);
    expect(result.criteria_results).toHaveLength(2);
    expect(result.passed).toBe(true);
  });

  it('rejects verdicts in the wrong order, and model errors, then falls back', async () => {
    const swapped = verdicts([
      { passed: true, criterion: 'The agent asks for the caller email address' },
      { passed: true, criterion: 'The agent greets the caller' },
    ]);
    const llm = createScriptedLLM([swapped, { error: new LLMError('down', 'llm_unavailable', true) }]);
    const result = await judgeCase(base, { llm });
    expect(result.judge).toBe('heuristic');
    expect(result.error).toContain('llm_unavailable');
    expect(llm.requests[1]?.messages.at(-1)?.content).toContain('verdict 1 is for criterion 2');
  });
});

describe('judgeCase heuristic', () => {
  it('is used for the builtin model and for no model', async () => {
    const a = await judgeCase(base, { llm: createBuiltinLLM() });
    const b = await judgeCase(base);
    expect(a).toEqual(b);
    expect(a.judge).toBe('heuristic');
    expect(a.error).toBeUndefined();
  });

  it('passes a case whose criteria the transcript meets, with reasons', async () => {
    const result = await judgeCase({
      ...base,
      success_criteria: [
        'The agent greets the caller',
        'The agent asks for the caller email address',
        'The agent offers to book an appointment',
        'The agent asks which day and time suit the caller',
        'The agent stays polite and professional',
        'The conversation reaches a natural end',
        'The agent does not repeat the same sentence word for word',
        'The agent keeps its replies short and conversational',
        'The caller ends the call satisfied',
      ],
    });
    expect(result.criteria_results.filter((r) => !r.passed)).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.criteria_results.every((r) => r.reason.startsWith('Heuristic: '))).toBe(true);
    expect(result.criteria_results[1]?.reason).toContain('email');
  });

  it('fails criteria the transcript does not meet: all fails, any passes', async () => {
    const input: JudgeInput = {
      ...base,
      success_criteria: [
        'The agent offers to transfer the caller to a person',
        'The agent explains the cancellation policy',
        'The agent greets the caller',
      ],
    };
    const all = await judgeCase(input);
    expect(all.criteria_results.map((r) => r.passed)).toEqual([false, false, true]);
    expect(all.criteria_results[1]?.reason).toMatch(/miss .*cancellation/);
    expect(all.passed).toBe(false);
    const any = await judgeCase({ ...input, call_success_type: 'any' });
    expect(any.passed).toBe(true);
  });

  it('judges endings by reason, and rudeness', async () => {
    const ended = await judgeCase({
      ...base,
      success_criteria: [
        'The agent ends the call because the caller is not interested',
        'The agent ends the call for this reason: wrong number',
      ],
      endedBy: 'the caller is not interested',
    });
    expect(ended.criteria_results.map((r) => r.passed)).toEqual([true, false]);
    const byUser = await judgeCase({
      ...base,
      success_criteria: ['The agent ends the call because the caller is not interested'],
      endedBy: 'user',
    });
    expect(byUser.criteria_results[0]).toMatchObject({
      passed: false,
      reason: expect.stringContaining('caller ended'),
    });
    const rude = await judgeCase({
      ...base,
      success_criteria: [
        'The agent stays polite and professional',
        "The agent acknowledges the caller's frustration and de-escalates",
      ],
      turns: [
        { speaker: 'user', text: 'This is ridiculous!' },
        { speaker: 'agent', text: 'Calm down, that is not my problem.' },
      ],
    });
    expect(rude.criteria_results.map((r) => r.passed)).toEqual([false, false]);
    expect(rude.criteria_results[0]?.reason).toContain('rude');
  });

  it('fails criteria about completing or ending when the conversation hit max_turns', async () => {
    const result = await judgeCase({
      ...base,
      success_criteria: [
        'The conversation reaches a natural end',
        'The agent completes the booking',
        'The agent ends the call because the caller is not interested',
        'The agent greets the caller',
      ],
      endedBy: null,
      hitMaxTurns: true,
    });
    expect(result.criteria_results.map((r) => r.passed)).toEqual([false, false, false, true]);
    expect(result.criteria_results[0]?.reason).toContain('turn limit');
    expect(result.passed).toBe(false);
  });

  it('inverts a negated criterion and flags repetition', async () => {
    const result = await judgeCase({
      ...base,
      success_criteria: ['The agent does not mention prices', 'The agent does not repeat the same sentence'],
      turns: [
        { speaker: 'agent', text: 'How can I help you today?' },
        { speaker: 'user', text: 'Hm.' },
        { speaker: 'agent', text: 'How can I help you today?' },
      ],
    });
    expect(result.criteria_results.map((r) => r.passed)).toEqual([true, false]);
  });

  it('does not pass a case without criteria', async () => {
    const result = await judgeCase({ ...base, success_criteria: [] }, { llm: createScriptedLLM([]) });
    expect(result).toEqual({ passed: false, criteria_results: [], judge: 'heuristic' });
  });
});

describe('judgeCase over the wire (openai adapter, test server)', () => {
  let server: TestLLMServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends the verdict tool as a required function call and reads its streamed arguments', async () => {
    server = await createTestLLMServer({ apiKey: 'sk-test' });
    const llm = createOpenAILLM({
      baseUrl: server.baseUrl,
      apiKey: 'sk-test',
      model: 'gpt-test',
      maxRetries: 0,
    });
    server.script(
      { toolCalls: [{ name: VERDICTS_TOOL, arguments: '{"verdicts": [' }] },
      {
        toolCalls: [
          {
            name: VERDICTS_TOOL,
            arguments: {
              verdicts: [
                { criterion: 'The agent greets the caller', passed: true, reason: 'It said hi.' },
                {
                  criterion: 'The agent asks for the caller email address',
                  passed: false,
                  reason: 'It did not.',
                },
              ],
              passed: true,
            },
          },
        ],
      },
    );
    const result = await judgeCase({ ...base, call_success_type: 'any' }, { llm });
    expect(result).toEqual({
      passed: true,
      judge: 'llm',
      criteria_results: [
        { criterion: 'The agent greets the caller', passed: true, reason: 'It said hi.' },
        { criterion: 'The agent asks for the caller email address', passed: false, reason: 'It did not.' },
      ],
    });
    expect(server.requests).toHaveLength(2);
    const body = server.requests[0]?.body as {
      tool_choice: string;
      tools: { type: string; function: { name: string; parameters: { required: string[] } } }[];
    };
    expect(body.tool_choice).toBe('required');
    expect(body.tools[0]?.function.name).toBe(VERDICTS_TOOL);
    expect(body.tools[0]?.function.parameters.required).toEqual(['verdicts']);
    const retry = server.requests[1]?.body as { messages: { role: string; content: string }[] };
    expect(retry.messages.at(-1)?.content).toContain('not JSON');
  });
});
