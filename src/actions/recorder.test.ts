import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { ActionRecorder } from './index.ts';

const context = { call_id: 'call-1', model_id: 'agent-1', workspace_id: 'ws-1' };

describe('ActionRecorder', () => {
  it('keeps the latest run of each action and one timeline entry per attempt', () => {
    const clock = createManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const recorder = new ActionRecorder(context, { clock });

    const first = recorder.start({ name: 'lookup', action_type: 'custom_action_type' }, { id: 1 });
    expect(first.attempt).toBe(1);
    expect(recorder.timeline[0]).toMatchObject({ status: 'started', finished_at: null, attempt: 1 });
    clock.advance(1500);
    first.fail('the server answered 500');

    clock.advance(500);
    const second = recorder.start({ name: 'lookup', action_type: 'custom_action_type' }, { id: 2 });
    expect(second.attempt).toBe(2);
    clock.advance(250);
    second.succeed({ status: 200 });
    second.fail('ignored: already finished');

    const other = recorder.start({ name: 'extract_age', action_type: 'extract_info_action_type' });
    expect(other.attempt).toBe(1);
    other.succeed();

    const snap = recorder.snapshot();
    expect(snap.action_execution_timeline).toEqual([
      {
        name: 'lookup',
        action_type: 'custom_action_type',
        attempt: 1,
        status: 'failed',
        failed_reason: 'the server answered 500',
        started_at: '2026-01-01T12:00:00.000Z',
        finished_at: '2026-01-01T12:00:01.500Z',
        parameters_from_llm: { id: 1 },
        parameters_hard_coded: {},
      },
      {
        name: 'lookup',
        action_type: 'custom_action_type',
        attempt: 2,
        status: 'success',
        failed_reason: null,
        started_at: '2026-01-01T12:00:02.000Z',
        finished_at: '2026-01-01T12:00:02.250Z',
        parameters_from_llm: { id: 2 },
        parameters_hard_coded: {},
      },
      expect.objectContaining({ name: 'extract_age', attempt: 1, status: 'success' }),
    ]);
    expect(Object.keys(snap.executed_actions)).toEqual(['lookup', 'extract_age']);
    const lookup = snap.executed_actions.lookup;
    expect(lookup).toMatchObject({
      call_id: 'call-1',
      model_id: 'agent-1',
      workspace_id: 'ws-1',
      parameters_from_llm: { id: 2 },
      error_message: null,
      return_value: { status: 200 },
      timestamp: Date.UTC(2026, 0, 1, 12, 0, 2) / 1000,
      timestamp_datetime: '2026-01-01T12:00:02.000Z',
    });
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
  });

  it('carries every executed_actions field with defaults', () => {
    const recorder = new ActionRecorder(context, { clock: createManualClock() });
    recorder.start({ name: 'a', action_type: 't' }).fail('boom');
    const entry = recorder.executedActions.a;
    expect(Object.keys(entry ?? {}).sort()).toEqual(
      [
        'name',
        'action_type',
        'call_id',
        'model_id',
        'workspace_id',
        'description',
        'parameters_hard_coded',
        'parameters_from_llm',
        'error_message',
        'speak_on_failure',
        'return_value',
        'is_relevant_action',
        'run_action_before_call_start',
        'timestamp',
        'timestamp_datetime',
        'parameters_schema',
        'message_before_action',
        'use_hard_coded_message',
        'delay_message_time_seconds',
        'delay_message',
        'action_failed_timeout',
        'real_time_action',
        'is_interruptible',
        'action_id',
      ].sort(),
    );
    expect(entry?.error_message).toBe('boom');
  });

  it('continues attempt numbering from a snapshot', () => {
    const clock = createManualClock();
    const recorder = new ActionRecorder(context, { clock });
    recorder.start({ name: 'a', action_type: 't' }).succeed();
    const restored = new ActionRecorder(context, { clock, snapshot: recorder.snapshot() });
    expect(restored.start({ name: 'a', action_type: 't' }).attempt).toBe(2);
    expect(restored.timeline).toHaveLength(2);
  });
});
