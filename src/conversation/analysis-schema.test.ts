import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { parseJudgement } from './analysis/judge-parse.ts';
import {
  AnalysisFieldsSchema,
  AnalysisSchema,
  clip,
  finalizeAnalysis,
  type AnalysisFields,
} from './analysis/schema.ts';

// The analysis object as the spec lists it, and the aggregates our code computes from it.

const allTrue: AnalysisFields = {
  persona: true,
  persona_feedback: '',
  style: true,
  style_feedback: '',
  steps: true,
  steps_feedback: '',
  objections: true,
  objections_feedback: '',
  objection_not_defined: true,
  objection_not_defined_feedback: '',
  knowledge: true,
  knowledge_feedback: '',
  appointment: true,
  appointment_feedback: '',
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
  goal: true,
  goal_feedback: '',
  user_sentiment: true,
  user_sentiment_feedback: '',
  agent_sentiment: true,
  agent_sentiment_feedback: '',
  call_summary: true,
  call_summary_feedback: 'A short call.',
};

describe('analysis schema', () => {
  it('accepts each allowed value and rejects the others', () => {
    const ok = (patch: Partial<Record<string, unknown>>) =>
      Value.Check(AnalysisFieldsSchema, { ...allTrue, ...patch });
    expect(ok({})).toBe(true);
    for (const v of [false, 'not_applicable', null]) expect(ok({ persona: v, appointment: v })).toBe(true);
    for (const v of ['partial', false]) expect(ok({ goal: v, agent_sentiment: v })).toBe(true);
    expect(ok({ persona: 'partial' })).toBe(false);
    expect(ok({ goal: null })).toBe(false);
    expect(ok({ goal: 'not_applicable' })).toBe(false);
    expect(ok({ no_repetition: null })).toBe(false);
    expect(ok({ opted_in: 'partial' })).toBe(false);
    expect(ok({ call_summary: false })).toBe(false);
    expect(ok({ call_summary_feedback: 'x'.repeat(500) })).toBe(false);
    expect(ok({ call_summary_feedback: 'x'.repeat(499) })).toBe(true);
    expect(ok({ extra: true })).toBe(false);
    const { goal_feedback: _, ...missing } = allTrue;
    expect(Value.Check(AnalysisFieldsSchema, missing)).toBe(false);
  });

  it('computes the aggregates from the fields', () => {
    const clean = finalizeAnalysis(allTrue);
    expect(Value.Check(AnalysisSchema, clean)).toBe(true);
    expect(clean).toMatchObject({
      judge_found_partial_or_error: false,
      judge_found_full_error: false,
      all_feedback: '',
    });

    // not_applicable and null are neither errors nor partial.
    const unjudged = finalizeAnalysis({
      ...allTrue,
      knowledge: null,
      knowledge_feedback: 'n/a',
      steps: 'not_applicable',
    });
    expect(unjudged.judge_found_partial_or_error).toBe(false);
    expect(unjudged.knowledge_feedback).toBe('n/a');

    const partial = finalizeAnalysis({ ...allTrue, goal: 'partial', goal_feedback: 'Half done.' });
    expect(partial).toMatchObject({
      judge_found_partial_or_error: true,
      judge_found_full_error: false,
      all_feedback: 'goal: Half done.',
    });

    const failed = finalizeAnalysis({
      ...allTrue,
      style: false,
      style_feedback: 'Too   long.',
      user_sentiment: 'partial',
      user_sentiment_feedback: '',
      persona_feedback: 'ignored because persona is true',
    });
    expect(failed).toMatchObject({
      judge_found_partial_or_error: true,
      judge_found_full_error: true,
      style_feedback: 'Too long.',
      user_sentiment_feedback: 'No explanation was given.',
      persona_feedback: '',
      all_feedback: 'style: Too long.\nuser_sentiment: No explanation was given.',
    });
  });

  it('clips text at a word boundary', () => {
    expect(clip('one two three', 100)).toBe('one two three');
    const cut = clip('alpha beta gamma delta epsilon', 15);
    expect(cut.length).toBeLessThanOrEqual(15);
    expect(cut).toBe('alpha beta…');
  });
});

describe('parseJudgement', () => {
  it('reports why an answer is unusable', () => {
    expect(parseJudgement('not json')).toEqual({ ok: false, error: 'the tool arguments are not JSON' });
    expect(parseJudgement('[1]')).toEqual({ ok: false, error: 'the tool arguments are not a JSON object' });
    const missing = parseJudgement(JSON.stringify({ ...allTrue, goal: undefined }));
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toMatch(/^invalid analysis: goal/);
  });

  it('fills missing feedback with empty strings', () => {
    const { persona_feedback: _, ...rest } = allTrue;
    const parsed = parseJudgement(JSON.stringify(rest));
    expect(parsed).toEqual({ ok: true, fields: allTrue });
  });
});
