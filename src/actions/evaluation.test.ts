import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import {
  evaluationToolSpec,
  heuristicVerdict,
  parseCustomEvalQuestion,
  parseVerdict,
  startEvaluation,
  evaluationValue,
  type CustomEvalQuestion,
  type EvalCategory,
} from './evaluation.ts';
import { ActionRecorder } from './recorder.ts';

const q = (category: EvalCategory, text = 'Did the person ask about a refund?', expected?: string) => ({
  identifier: 'x',
  text,
  category,
  ...(expected !== undefined ? { expected_result: expected } : {}),
});

describe('the stored question', () => {
  it('is parsed once, category pass_fail by default; an unusable one is null', () => {
    expect(parseCustomEvalQuestion({ question: { identifier: 'a', text: 'b' } })).toEqual({
      identifier: 'a',
      text: 'b',
      category: 'pass_fail',
    });
    expect(
      parseCustomEvalQuestion({
        question: { identifier: 'a', text: 'b', category: 'numeric', expected_result: '7' },
      }),
    ).toEqual({ identifier: 'a', text: 'b', category: 'numeric', expected_result: '7' });
    for (const config of [
      {},
      { question: 'a' },
      { question: { text: 'b' } },
      { question: { identifier: 'a', text: ' ' } },
      { question: { identifier: 'a', text: 'b', category: 'vibes' } },
    ]) {
      expect(parseCustomEvalQuestion(config)).toBeNull();
    }
  });
});

describe("reading the model's verdict", () => {
  const read = (category: EvalCategory, answer: { toolArguments?: string; text: string }) =>
    parseVerdict(q(category), answer);

  it('takes the tool arguments, then a JSON object in the text, then the bare answer', () => {
    expect(read('pass_fail', { toolArguments: '{"result": false, "reason": "r"}', text: '' })).toEqual({
      ok: true,
      verdict: { result: false, reason: 'r' },
    });
    expect(read('pass_fail', { toolArguments: '{"result": "Yes"}', text: '' })).toMatchObject({
      verdict: { result: true },
    });
    expect(read('numeric', { text: 'Sure: {"result": 6.5, "reason": "ok"}' })).toMatchObject({
      verdict: { result: 6.5, reason: 'ok' },
    });
    expect(read('numeric', { text: '7/10' })).toMatchObject({ verdict: { result: 7 } });
    expect(read('likert_scale', { text: '"3".' })).toMatchObject({ verdict: { result: 3 } });
    expect(read('descriptive', { text: ' Wants a quote. ' })).toMatchObject({
      verdict: { result: 'Wants a quote.' },
    });
    // Broken tool arguments fall back to the text.
    expect(read('pass_fail', { toolArguments: '{result: tru', text: 'No.' })).toMatchObject({
      verdict: { result: false },
    });
  });

  it('refuses what is not of the category, saying why', () => {
    expect(read('pass_fail', { text: 'It depends' })).toEqual({
      ok: false,
      error: 'the result is not true or false',
    });
    expect(read('likert_scale', { toolArguments: '{"result": 6}', text: '' })).toMatchObject({ ok: false });
    expect(read('likert_scale', { text: '2.5' })).toMatchObject({ ok: false });
    expect(read('numeric', { text: 'seven' })).toMatchObject({ ok: false });
    expect(read('descriptive', { text: '' })).toEqual({ ok: false, error: 'the model gave no answer' });
  });

  it('offers a result schema of the category', () => {
    const schema = (c: EvalCategory) =>
      (evaluationToolSpec(q(c)).parameters as { properties: { result: { type: string } } }).properties.result
        .type;
    expect([schema('pass_fail'), schema('numeric'), schema('likert_scale'), schema('descriptive')]).toEqual([
      'boolean',
      'number',
      'integer',
      'string',
    ]);
  });
});

describe('the offline heuristic', () => {
  const transcript = 'bot: Hi, how can I help?\nhuman: I want a refund for my order\nbot: Sure.';

  it('pass_fail: true when at least half the key words appear', () => {
    expect(heuristicVerdict(q('pass_fail'), transcript).result).toBe(true);
    expect(
      heuristicVerdict(q('pass_fail', 'Did they discuss pricing and warranty?'), transcript).result,
    ).toBe(false);
    // The expected result's own words, when it has some, are what is looked for.
    expect(heuristicVerdict(q('pass_fail', 'Outcome?', 'refund order'), transcript).result).toBe(true);
    expect(heuristicVerdict(q('pass_fail', 'Outcome?', 'warranty claim'), transcript).result).toBe(false);
    // A bare yes/no expected result says nothing to look for: the question's words are used.
    expect(heuristicVerdict(q('pass_fail', 'Refund asked?', 'false'), transcript).result).toBe(true);
    expect(heuristicVerdict(q('pass_fail', 'Was it ok?'), transcript)).toEqual({
      result: null,
      reason: expect.stringContaining('no key words') as unknown as string,
    });
  });

  it('numeric and likert_scale are not scored; descriptive extracts the closest line', () => {
    expect(heuristicVerdict(q('numeric'), transcript).result).toBeNull();
    expect(heuristicVerdict(q('likert_scale'), transcript).reason).toContain('not evaluated offline');
    expect(heuristicVerdict(q('descriptive', 'What refund did they want?'), transcript).result).toBe(
      'I want a refund for my order',
    );
    expect(heuristicVerdict(q('descriptive', 'Which warranty?'), transcript).result).toBeNull();
  });
});

describe('recording', () => {
  it('is one run named by the identifier, with the question as its hard-coded parameters', async () => {
    const clock = createManualClock(Date.UTC(2026, 0, 1));
    const recorder = new ActionRecorder({ call_id: 'c', model_id: 'm', workspace_id: 'w' }, { clock });
    const question: CustomEvalQuestion = q('pass_fail');
    const attempt = startEvaluation({ recorder, action_id: 'a1', question });
    await clock.tick(1000);
    attempt.succeed(evaluationValue(question, { result: true, reason: 'r' }));
    const snap = recorder.snapshot();
    expect(snap.action_execution_timeline).toMatchObject([
      { name: 'x', action_type: 'custom_eval_action_type', status: 'success', attempt: 1 },
    ]);
    expect(snap.executed_actions.x).toMatchObject({
      action_id: 'a1',
      description: question.text,
      parameters_hard_coded: { question },
      return_value: { identifier: 'x', category: 'pass_fail', result: true, reason: 'r' },
      real_time_action: false,
    });
  });
});
