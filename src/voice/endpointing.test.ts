import { describe, expect, it } from 'vitest';
import { isCompleteUtterance } from './complete-utterance.ts';
import { endpointDelayMs, isTrailingOff } from './endpointing.ts';

describe('complete utterance', () => {
  it('takes questions and short yes/no/thanks answers as complete', () => {
    for (const text of [
      'Is it open?',
      'What time?"',
      'yes',
      'No.',
      'Okay, thank you!',
      'yes please',
      'no thanks',
      'Sure',
    ]) {
      expect(isCompleteUtterance(text), text).toBe(true);
    }
  });

  it('takes anything else as possibly going on', () => {
    for (const text of [
      '',
      'I would like to',
      'yes I think that we should',
      'Well',
      'My number is 5',
      'yes yes yes yes yes',
    ]) {
      expect(isCompleteUtterance(text), text).toBe(false);
    }
  });
});

describe('endpoint delay', () => {
  it('follows the patience level, halved for a complete utterance', () => {
    expect(endpointDelayMs('low', 'I want')).toBe(400);
    expect(endpointDelayMs('medium', 'I want')).toBe(800);
    expect(endpointDelayMs('high', 'I want')).toBe(1400);
    expect(endpointDelayMs('high', 'Can you hear me?')).toBe(700);
    expect(endpointDelayMs('low', 'yes')).toBe(200);
  });
});

describe('adaptive endpointing', () => {
  it('waits longer for a line that trails off, between documented bounds', () => {
    for (const text of [
      'I want to book a table and',
      'so um',
      'My number is, ',
      'we could go, but',
      'I would like',
    ]) {
      expect(endpointDelayMs('medium', text), text).toBe(1400);
    }
    expect(endpointDelayMs('low', 'and')).toBe(700);
    expect(endpointDelayMs('high', 'because')).toBe(2450);
  });

  it('waits the patience level for anything else, half of it for a complete answer', () => {
    expect(endpointDelayMs('medium', 'I would like a table for four')).toBe(800);
    expect(endpointDelayMs('medium', 'Yes please.')).toBe(400);
    expect(endpointDelayMs('medium', 'Is it open on Sunday?')).toBe(400);
    expect(endpointDelayMs('medium', 'I want the blue one.')).toBe(800);
  });

  it('tells trailing lines from finished ones', () => {
    expect(isTrailingOff('and then')).toBe(true);
    expect(isTrailingOff('I want to book a')).toBe(false);
    expect(isTrailingOff('I will be there at ten.')).toBe(false);
    expect(isTrailingOff('the band')).toBe(false);
    expect(isTrailingOff('')).toBe(false);
  });
});

describe('endpointing on a final', () => {
  it('takes a line ending on a function word as trailing off, any other line as finished', () => {
    for (const text of ['I would like to book a', 'my number is', 'and then I', "I'm", 'do you have any'])
      expect(endpointDelayMs('medium', text, 'final'), text).toBe(1400);
    for (const text of ['I would like to book a table', 'tomorrow', 'my number is five five five'])
      expect(endpointDelayMs('medium', text, 'final'), text).toBe(400);
    // On a partial, the same words are read with care: the last one may still be growing.
    expect(endpointDelayMs('medium', 'I would like to book a')).toBe(800);
    expect(endpointDelayMs('medium', 'I would like to book a table')).toBe(800);
    expect(endpointDelayMs('medium', '', 'final')).toBe(800);
  });

  it('waits the whole delay for a complete-looking line when the pitch holds the turn', () => {
    expect(endpointDelayMs('medium', 'I was charged twice', 'final', 0.5, true)).toBe(800);
    expect(endpointDelayMs('medium', 'Can you send me a confirmation?', 'final', 0.5, true)).toBe(800);
    // A line that trails off waits longer anyway.
    expect(endpointDelayMs('medium', 'I would like to book a', 'final', 0.5, true)).toBe(1400);
    expect(endpointDelayMs('medium', 'I was charged twice', 'final', 0.5, false)).toBe(400);
  });
});
