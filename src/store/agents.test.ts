import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { AgentSpec } from '../core/index.ts';
import { parseAgentSpec } from './agents.ts';

// The spec column as the store reads it: SQLite hands back text, PostgreSQL parsed jsonb.

describe('parseAgentSpec', () => {
  it('reads text and parsed values alike', () => {
    const spec = { description: 'd', agent: { prompt: 'Hi', interruption_fade_out: 5 } };
    expect(parseAgentSpec(JSON.stringify(spec))).toEqual(spec);
    expect(parseAgentSpec(spec)).toBe(spec);
  });

  it('reads a missing or unreadable column as an empty spec instead of throwing', () => {
    expect(parseAgentSpec(null)).toEqual({});
    expect(parseAgentSpec('{"agent": ')).toEqual({});
    expect(parseAgentSpec('"just text"')).toEqual({});
  });

  it('keeps the valid fields of a spec that fails the check', () => {
    const stored = { agent: { prompt: 'Hi', background_noise: { type: 'street', volume: 101 } }, x: 1 };
    expect(parseAgentSpec(JSON.stringify(stored))).toEqual({
      agent: { prompt: 'Hi', background_noise: {} },
      x: 1,
    });
  });

  it('keeps texts the API accepted by code points, even when they are longer in UTF-16 units', () => {
    // 4000 emoji: 4000 code points (the API's limit), 8000 UTF-16 units.
    const description = '👋'.repeat(4000);
    expect(Value.Check(AgentSpec, { description })).toBe(false);
    expect(parseAgentSpec(JSON.stringify({ description }))).toEqual({ description });
  });
});
