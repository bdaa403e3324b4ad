import { describe, expect, it } from 'vitest';
import { MAX_PIECE_CHARS, cleanText, splitForSynthesis } from './tts-flite-text.ts';

describe('flite text pieces', () => {
  it('cuts a paragraph at sentence ends', () => {
    expect(splitForSynthesis('Hello there! How are you? I am fine. 3 cats came.')).toEqual([
      'Hello there!',
      'How are you?',
      'I am fine.',
      '3 cats came.',
    ]);
    expect(splitForSynthesis('He said "Stop." Then "Go!" (Really.) Yes.')).toEqual([
      'He said "Stop."',
      'Then "Go!"',
      '(Really.)',
      'Yes.',
    ]);
  });

  it('does not cut after a title, a decimal point or a lowercase continuation', () => {
    expect(splitForSynthesis('Dr. Smith and Mrs. Jones meet at 3.30 today. e.g. this one.')).toEqual([
      'Dr. Smith and Mrs. Jones meet at 3.30 today. e.g. this one.',
    ]);
  });

  it('cuts an overlong sentence at a clause, else at a word', () => {
    const clause = `${'word '.repeat(40).trim()}, ${'more '.repeat(40).trim()}, ${'end '.repeat(20).trim()}.`;
    const pieces = splitForSynthesis(clause);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces[0]!.endsWith(',')).toBe(true);
    expect(pieces.join(' ')).toBe(clause);

    const words = 'abcdefghi '.repeat(70).trim();
    const cut = splitForSynthesis(words);
    expect(cut.every((p) => p.length <= MAX_PIECE_CHARS)).toBe(true);
    expect(cut.join(' ')).toBe(words);
  });

  it('gives flite one printable line', () => {
    expect(cleanText('  Hello\n\tthere\u0000 you\u0007. ')).toBe('Hello there you .');
    expect(splitForSynthesis(' \n\u0001 ')).toEqual([]);
  });
});
