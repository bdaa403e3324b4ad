import { describe, expect, it } from 'vitest';
import { PLATFORM_MODEL, effectiveModel } from './plans.ts';

describe('effectiveModel (spec Versioning rule 5)', () => {
  it('runs the requested model on enterprise plans', () => {
    expect(effectiveModel('gpt-4.1', 'enterprise')).toBe('gpt-4.1');
  });
  it('runs the platform model on standard plans whatever is requested', () => {
    expect(effectiveModel('gpt-4.1', 'standard')).toBe(PLATFORM_MODEL);
  });
  it('runs the platform model when none is requested', () => {
    expect(effectiveModel(undefined, 'enterprise')).toBe(PLATFORM_MODEL);
  });
});
