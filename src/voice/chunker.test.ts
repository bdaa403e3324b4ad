import { describe, expect, it } from 'vitest';
import { createSentenceChunker } from './chunker.ts';
import { createWordFilter } from './filter-words.ts';

// The sentence chunker is fed the way a model streams: a few characters at a time.

function chunk(text: string, step = 3): string[] {
  const chunker = createSentenceChunker();
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += step) pieces.push(...chunker.push(text.slice(i, i + step)));
  const rest = chunker.flush();
  if (rest) pieces.push(rest);
  return pieces;
}

describe('sentence chunker', () => {
  it('splits at sentence ends as soon as the next character shows the sentence is over', () => {
    const chunker = createSentenceChunker();
    expect(chunker.push('Hi there.')).toEqual([]);
    expect(chunker.push(' How')).toEqual(['Hi there.']);
    expect(chunker.push(' are you?! Fine')).toEqual(['How are you?!']);
    expect(chunker.flush()).toBe('Fine');
    expect(chunker.flush()).toBeNull();
  });

  it('does not split numbers, abbreviations or initials', () => {
    expect(
      chunk(
        'It costs 3.5 dollars. Dr. Smith and J. Doe will see you at 5 p.m. tomorrow, e.g. at the desk. Bye.',
      ),
    ).toEqual([
      'It costs 3.5 dollars.',
      'Dr. Smith and J. Doe will see you at 5 p.m. tomorrow, e.g. at the desk.',
      'Bye.',
    ]);
  });

  it('keeps closing quotes with their sentence and splits on new lines', () => {
    expect(chunk('He said "yes." Then\nwe left')).toEqual(['He said "yes."', 'Then', 'we left']);
  });

  it('splits a long sentence at a comma so the first audio comes early', () => {
    const long =
      'We have several options for you today, including delivery, pickup at the store, or a visit at home.';
    expect(chunk(long)).toEqual([
      'We have several options for you today, including delivery, pickup at the store,',
      'or a visit at home.',
    ]);
    expect(chunk('Yes, sure, fine.')).toEqual(['Yes, sure, fine.']);
  });

  it('splits a run with no punctuation at a space past the hard maximum', () => {
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const pieces = chunk(words, 7);
    expect(pieces.length).toBe(3);
    expect(pieces.every((p) => p.length <= 260)).toBe(true);
    expect(pieces.join(' ')).toBe(words);
  });
});

describe('filter words', () => {
  it('removes whole words in any case and tidies the spacing', () => {
    const filter = createWordFilter(['um', 'basically', 'you know']);
    expect(filter('Well, um, basically we open at nine, you know.')).toBe('Well, we open at nine.');
    expect(filter('Umbrellas are UM basically fine')).toBe('Umbrellas are fine');
    expect(filter('um')).toBe('');
    expect(createWordFilter([])('Unchanged , text')).toBe('Unchanged , text');
  });
});
