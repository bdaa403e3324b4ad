import { describe, expect, it } from 'vitest';
import { isCompleteUtterance } from './complete-utterance.ts';
import { endpointDelayMs } from './endpointing.ts';

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
