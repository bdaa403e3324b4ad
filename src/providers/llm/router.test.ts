import { describe, expect, it } from 'vitest';
import type { LLM } from './types.ts';
import { createModelRouter } from './router.ts';

const fake = (name: string): LLM => ({ name, chat: () => (async function* () {})() });

describe('model routing (spec Versioning rule 5)', () => {
  const platform = fake('platform');
  const made: string[] = [];
  const router = createModelRouter({
    platform,
    named: (model) => {
      made.push(model);
      return fake(`named:${model}`);
    },
  });

  it('runs the platform model when the agent names none or names the platform model', () => {
    expect(router.route(undefined, 'enterprise')).toEqual({ llm: platform, model: undefined });
    expect(router.route('parley', 'enterprise')).toEqual({ llm: platform, model: undefined });
  });

  it('runs a named model on enterprise plans, one adapter per model', () => {
    const first = router.route('gpt-4.1', 'enterprise');
    expect(first.llm.name).toBe('named:gpt-4.1');
    expect(first.model).toBe('gpt-4.1');
    expect(router.route('gpt-4.1', 'enterprise').llm).toBe(first.llm);
    expect(made).toEqual(['gpt-4.1']);
  });

  it('runs the platform model on standard plans whatever the agent names', () => {
    expect(router.route('gpt-4.1', 'standard')).toEqual({ llm: platform, model: undefined });
  });

  it('runs the platform model when no endpoint can serve named models', () => {
    const offline = createModelRouter({ platform });
    expect(offline.route('gpt-4.1', 'enterprise')).toEqual({ llm: platform, model: undefined });
  });
});
