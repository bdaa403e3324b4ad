import { describe, expect, it } from 'vitest';
import { countWords, finalInterrupts, partialInterrupts } from './barge-in.ts';

describe('barge-in rules', () => {
  it('counts words, keeping contractions and hyphenated words whole', () => {
    expect(countWords('')).toBe(0);
    expect(countWords("  I don't know, well-known 42! ")).toBe(5);
  });

  it('partials interrupt at min_words_to_interrupt words; never with 0 (VAD decides then)', () => {
    expect(partialInterrupts(2, 'stop')).toBe(false);
    expect(partialInterrupts(2, 'stop please')).toBe(true);
    expect(partialInterrupts(0, 'stop please now')).toBe(false);
  });

  it('finals need the same words, or two with 0 (a lone "yeah" stays a backchannel)', () => {
    expect(finalInterrupts(3, 'yeah okay')).toBe(false);
    expect(finalInterrupts(3, 'no wait stop')).toBe(true);
    expect(finalInterrupts(0, 'yeah')).toBe(false);
    expect(finalInterrupts(0, 'wait no')).toBe(true);
  });
});
