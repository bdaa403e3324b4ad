import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { ACTION_CONFIGS, ACTION_KINDS, emptyActionConfig, storedActionConfigs } from './action-config.ts';

describe('action configurations', () => {
  it("each kind's empty configuration passes its stored check", () => {
    for (const kind of ACTION_KINDS) {
      expect(Value.Check(storedActionConfigs[kind], emptyActionConfig(kind, '')), kind).toBe(true);
    }
  });

  it('the stored checks keep the limits other than text lengths and formats', () => {
    const transfer = { name: 'x', timeout: 601, digits: 'abc' };
    expect(Value.Check(ACTION_CONFIGS.LIVE_TRANSFER, transfer)).toBe(false);
    expect(Value.Errors(storedActionConfigs.LIVE_TRANSFER, transfer).First()?.path).toBe('/timeout');
    expect(Value.Check(storedActionConfigs.LIVE_TRANSFER, { name: 'x', timeout: 600, digits: '12#' })).toBe(
      true,
    );
    // A text longer in UTF-16 units than in code points, and a date TypeBox has no format for.
    const booking = { name: '📅'.repeat(200), timezone: 'UTC', first_appt_date: '2030-01-05' };
    expect(Value.Check(ACTION_CONFIGS.REAL_TIME_BOOKING, booking)).toBe(false);
    expect(Value.Check(storedActionConfigs.REAL_TIME_BOOKING, booking)).toBe(true);
  });

  it('keeps property names whatever they are', () => {
    expect(Object.keys(storedActionConfigs.CUSTOM_ACTION.properties)).toEqual(
      Object.keys(ACTION_CONFIGS.CUSTOM_ACTION.properties),
    );
  });
});
