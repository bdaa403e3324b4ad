import { describe, expect, it } from 'vitest';
import { chunkText, cleanText, formatPassages } from './index.ts';

describe('cleanText', () => {
  it('normalizes line breaks, spaces, control characters and blank lines', () => {
    expect(cleanText('  Hello\u00a0\u00a0 world\t!\r\n\r\n\r\n\r\nNext\u0007 line  \rend  ')).toBe(
      'Hello world !\n\nNext line\nend',
    );
    expect(cleanText('   \n\n ')).toBe('');
  });
});

describe('chunkText', () => {
  const sentence = (i: number) => `Sentence number ${i} says something about topic ${i}.`;

  it('keeps short text as one chunk and returns nothing for empty text', () => {
    expect(chunkText('One paragraph.\n\nAnother one.')).toEqual(['One paragraph.\n\nAnother one.']);
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\n ')).toEqual([]);
  });

  it('splits on paragraph boundaries first, never exceeding maxChars', () => {
    const paragraphs = Array.from({ length: 6 }, (_, p) =>
      Array.from({ length: 4 }, (_, s) => sentence(p * 10 + s)).join(' '),
    );
    const chunks = chunkText(paragraphs.join('\n\n'), { maxChars: 500, overlap: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(500);
    // Without overlap every paragraph is whole in exactly one chunk.
    for (const p of paragraphs) expect(chunks.filter((c) => c.includes(p))).toHaveLength(1);
  });

  it('splits a long paragraph between sentences and overlaps whole sentences', () => {
    const text = Array.from({ length: 40 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, { maxChars: 300, overlap: 100 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(300);
      expect(c).toMatch(/^Sentence number \d+ .*\.$/s);
    }
    for (let i = 0; i < 40; i++) expect(chunks.some((c) => c.includes(sentence(i)))).toBe(true);
    // Each chunk after the first starts with the previous chunk's last sentences (≤ overlap).
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1] ?? '';
      const current = chunks[i] ?? '';
      let shared = 0;
      for (let n = 1; n <= Math.min(previous.length, current.length); n++) {
        if (previous.endsWith(current.slice(0, n))) shared = n;
      }
      expect(shared).toBeGreaterThan(0);
      expect(shared).toBeLessThanOrEqual(100);
      expect(current.slice(0, shared)).toMatch(/^Sentence number \d+ .*\.$/s);
    }
  });

  it('cuts text without sentence boundaries between words, and overlong words anywhere', () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(words, { maxChars: 120, overlap: 0 });
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(120);
    expect(chunks.join(' ')).toBe(words);
    const long = 'x'.repeat(1000);
    const cut = chunkText(long, { maxChars: 300, overlap: 0 });
    expect(cut.join('')).toBe(long);
    for (const c of cut) expect(c.length).toBeLessThanOrEqual(300);
  });
});

describe('formatPassages', () => {
  it('numbers passages in order', () => {
    const p = (text: string) => ({ text, sourceId: 's', knowledgeBaseId: 'b', score: 1 });
    expect(formatPassages([p('a'), p('b')])).toBe('[1] a\n\n[2] b');
  });
});
