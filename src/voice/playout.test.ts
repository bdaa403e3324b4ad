import { describe, expect, it } from 'vitest';
import { createPlayoutTracker, prefixAtWord } from './playout.ts';

describe('prefix at a word boundary', () => {
  it('keeps only whole words', () => {
    expect(prefixAtWord('Hello world again', 1)).toBe('Hello world again');
    expect(prefixAtWord('Hello world again', 0)).toBe('');
    expect(prefixAtWord('Hello world again', 6 / 17)).toBe('Hello');
    expect(prefixAtWord('Hello world again', 5 / 17)).toBe('Hello');
    expect(prefixAtWord('Hello world again', 0.2)).toBe('');
    expect(prefixAtWord('Hello world again', 0.99)).toBe('Hello world');
  });
});

describe('playout tracker', () => {
  it('gives whole segments played plus the played part of the current one', () => {
    const tracker = createPlayoutTracker();
    const a = tracker.addSegment('Hello there.', true);
    const b = tracker.addSegment('How are you today?', true);
    // Segment a: 1000..1400 on the played timeline; b: 1400..2200.
    for (let i = 0; i < 20; i += 1) tracker.queued(a, 1000 + i * 20, 20);
    tracker.completed(a);
    for (let i = 0; i < 40; i += 1) tracker.queued(b, 1400 + i * 20, 20);
    tracker.completed(b);
    expect(tracker.heard(900)).toBe('');
    expect(tracker.heard(1200)).toBe('Hello');
    expect(tracker.heard(1400)).toBe('Hello there.');
    expect(tracker.heard(1400 + 800 * (8 / 18))).toBe('Hello there. How are');
    expect(tracker.heard(2200)).toBe('Hello there. How are you today?');
  });

  it('skips lines that are not recorded but still counts their time', () => {
    const tracker = createPlayoutTracker();
    const filler = tracker.addSegment('One moment.', false);
    const answer = tracker.addSegment('It has shipped.', true);
    tracker.queued(filler, 0, 400);
    tracker.completed(filler);
    tracker.queued(answer, 400, 600);
    tracker.completed(answer);
    expect(tracker.heard(300)).toBe('');
    expect(tracker.heard(1000)).toBe('It has shipped.');
  });

  it('measures a segment still arriving by the speaking rate of complete ones', () => {
    const tracker = createPlayoutTracker();
    const a = tracker.addSegment('abcdefghij', true); // 10 chars in 500 ms: 50 ms a char
    tracker.queued(a, 0, 500);
    tracker.completed(a);
    const b = tracker.addSegment('one two three four', true); // 18 chars: about 900 ms
    tracker.queued(b, 500, 100); // only 100 ms of it has arrived
    expect(tracker.heard(500 + 450)).toBe('abcdefghij one two');
  });
});
