import { describe, expect, it } from 'vitest';
import { createFirstRunWatch, soundsLikeMachine } from './voicemail.ts';

describe('machine phrases', () => {
  it('recognizes what mailboxes say', () => {
    for (const text of [
      'Please leave a message after the tone',
      'The person you are calling is not available',
      "I can't take your call right now",
      'You have reached the voicemail of',
      'The mailbox is full',
      'Record your message at the beep',
    ]) {
      expect(soundsLikeMachine(text), text).toBe(true);
    }
  });

  it('does not take ordinary answers for a machine', () => {
    for (const text of [
      'Hello?',
      'Yes, speaking.',
      'Who is this?',
      'I am available on Monday',
      'Leave it at the door',
    ]) {
      expect(soundsLikeMachine(text), text).toBe(false);
    }
  });
});

describe('first run of speech', () => {
  it('is long when it goes on past 4 s with no pause of the patience delay', () => {
    const run = createFirstRunWatch(800);
    run.speechStart(0);
    expect(run.dueAt()).toBe(4_000);
    run.speechEnd(2_000);
    run.speechStart(2_500); // a 500 ms pause: the same run
    expect(run.isLong(3_900)).toBe(false);
    expect(run.isLong(4_000)).toBe(true);
  });

  it('ends at the first real pause; later speech does not count', () => {
    const run = createFirstRunWatch(800);
    run.speechStart(0);
    run.speechEnd(1_000);
    run.speechStart(2_000); // a 1 s pause: the first run was a short "Hello?"
    expect(run.dueAt()).toBeNull();
    expect(run.isLong(10_000)).toBe(false);
  });
});

describe('first run of speech, ended by a turn', () => {
  it('ends when the session takes a turn in a pause shorter than the patience delay', () => {
    const watch = createFirstRunWatch(800, 4_000);
    watch.speechStart(0);
    watch.speechEnd(3_000);
    watch.turnTaken();
    // The agent answered after 400 ms; the far end speaks again: a new run, not the same one.
    watch.speechStart(3_400);
    expect(watch.dueAt()).toBeNull();
    expect(watch.isLong(6_000)).toBe(false);
    // Without the turn, the same speech is one run of 6 s: a machine's greeting.
    const untaken = createFirstRunWatch(800, 4_000);
    untaken.speechStart(0);
    untaken.speechEnd(3_000);
    untaken.speechStart(3_400);
    expect(untaken.isLong(6_000)).toBe(true);
  });
});
