// `synthesizer_filter_words`: words the agent must never say aloud. They are removed from each
// piece of text before synthesis (whole words, any case); the transcript keeps the model's text.

const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A function removing `words` from text; the identity when the list is empty. */
export function createWordFilter(words: readonly string[]): (text: string) => string {
  const list = words.map((w) => w.trim()).filter(Boolean);
  if (list.length === 0) return (text) => text;
  // Longest first, so "a lot of" wins over "a"; bounded by non-letters, not \b (which is ASCII only).
  const alternatives = [...list]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join('|');
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{N}])`, 'giu');
  return (text) =>
    text
      .replace(pattern, '')
      .replace(/\s+([,.!?;:])/g, '$1')
      .replace(/([,;:])(?:\s*[,;:])+/g, '$1')
      .replace(/[,;:]+(?=[.!?])/g, '')
      .replace(/^[\s,;:]+/, '')
      .replace(/\s{2,}/g, ' ')
      .trim();
}
