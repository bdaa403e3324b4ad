import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { ActionRecorder, CollectedVariables, createInformationExtractorTool } from './index.ts';

const setup = () => {
  const variables = new CollectedVariables();
  const recorder = new ActionRecorder(
    { call_id: 'c', model_id: 'm', workspace_id: 'w' },
    { clock: createManualClock() },
  );
  return { variables, recorder };
};

describe('INFORMATION_EXTRACTOR tool', () => {
  it('yes_no takes a boolean', async () => {
    const deps = setup();
    const tool = createInformationExtractorTool(
      { identifier: 'wants demo', description: 'Whether they want a demo', kind: 'yes_no' },
      deps,
    );
    expect(tool.spec.name).toBe('extract_wants_demo');
    expect(tool.spec.parameters).toMatchObject({
      properties: { value: { type: 'boolean' } },
      required: ['value'],
    });
    expect(deps.variables.collected()).toEqual({});

    const bad = await tool.execute({ value: 'yes' }, {});
    expect(bad.result).toMatchObject({ ok: false, error: expect.stringContaining('boolean') });
    const good = await tool.execute({ value: true }, {});
    expect(good.result).toMatchObject({ ok: true, value: true });
    expect(deps.variables.collected()).toEqual({ 'wants demo': { value: true, collected: true } });

    const timeline = deps.recorder.timeline;
    expect(timeline.map((t) => [t.attempt, t.status])).toEqual([
      [1, 'failed'],
      [2, 'success'],
    ]);
    expect(timeline[0]?.failed_reason).toContain('boolean');
    expect(deps.recorder.executedActions.extract_wants_demo).toMatchObject({
      action_type: 'extract_info_action_type',
      parameters_hard_coded: { identifier: 'wants demo', condition: 'Whether they want a demo', choices: [] },
      error_message: null,
    });
  });

  it('single_choice takes one of the choices (case-insensitive) and gives the canonical one', async () => {
    const deps = setup();
    const tool = createInformationExtractorTool(
      {
        identifier: 'plan',
        description: 'Plan',
        kind: 'single_choice',
        choices: ['Basic', 'Pro'],
        examples: ['Pro'],
      },
      deps,
    );
    expect(tool.spec.parameters).toMatchObject({ properties: { value: { enum: ['Basic', 'Pro'] } } });
    expect(tool.spec.description).toContain('Examples: Pro');
    expect((await tool.execute({ value: 'Enterprise' }, {})).result).toMatchObject({ ok: false });
    expect((await tool.execute({ value: 3 }, {})).result).toMatchObject({ ok: false });
    expect(deps.variables.collected()).toEqual({});
    await tool.execute({ value: ' pro ' }, {});
    expect(deps.variables.collected()).toEqual({ plan: { value: 'Pro', collected: true } });
  });

  it('open_question takes a non-empty string', async () => {
    const deps = setup();
    const tool = createInformationExtractorTool(
      { identifier: 'city', description: 'City', kind: 'open_question' },
      deps,
    );
    expect((await tool.execute({}, {})).result).toMatchObject({
      ok: false,
      error: expect.stringContaining('missing'),
    });
    expect((await tool.execute({ value: '  ' }, {})).result).toMatchObject({ ok: false });
    expect((await tool.execute({ value: 42 }, {})).result).toMatchObject({ ok: false });
    await tool.execute({ value: 'Lisbon' }, {});
    expect(deps.variables.collected()).toEqual({ city: { value: 'Lisbon', collected: true } });
  });

  it('never reports system variables', () => {
    const variables = new CollectedVariables();
    variables.set('current_date', '2026-01-01');
    variables.set('name', 'Ann');
    expect(variables.collected()).toEqual({ name: { value: 'Ann', collected: true } });
  });
});
