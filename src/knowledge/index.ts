import type { KnowledgeHit, KnowledgeSource, NewKnowledgeSource, Repositories } from '../store/index.ts';

// Knowledge bases for the conversation engine: cleaning extracted text, cutting it into chunks
// the index ranks well and the LLM can quote, and retrieving the passages that answer a turn.
// The index itself (and the escaping of queries into its syntax) lives in the store.

export interface ChunkOptions {
  /** Upper bound on a chunk's length in characters (a single word longer than this is cut). */
  maxChars?: number;
  /** Characters of the previous chunk's tail (whole sentences) repeated at a chunk's start. */
  overlap?: number;
}

export const DEFAULT_MAX_CHARS = 800;
export const DEFAULT_OVERLAP = 100;

/**
 * Normalizes extracted text: one kind of line break, no control characters, runs of spaces and
 * tabs collapsed, lines trimmed, at most one blank line between paragraphs.
 */
export function cleanText(text: string): string {
  return (
    text
      .normalize('NFKC')
      .replace(/\r\n?/g, '\n')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ')
      .replace(/[\t\u00a0\u2000-\u200b\u202f\u205f\u3000]/g, ' ')
      .replace(/ {2,}/g, ' ')
      .split('\n')
      .map((line) => line.trim())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

interface Unit {
  text: string;
  /** Starts a paragraph (joined to the previous unit with a blank line, not a space). */
  paragraph: boolean;
}

const SENTENCE_END = /(?<=[.!?…])["')\]]*\s+(?=[\p{Lu}\p{N}"'([])/u;

function splitLong(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const sentences = text.split(SENTENCE_END).filter((s) => s.trim() !== '');
  const out: string[] = [];
  for (const sentence of sentences) {
    if (sentence.length <= maxChars) {
      out.push(sentence.trim());
      continue;
    }
    // A sentence longer than a chunk: cut between words, a word longer than a chunk anywhere.
    let current = '';
    for (const word of sentence.split(/\s+/)) {
      for (let i = 0; i < word.length; i += maxChars) {
        const piece = word.slice(i, i + maxChars);
        if (current !== '' && current.length + 1 + piece.length > maxChars) {
          out.push(current);
          current = '';
        }
        current = current === '' ? piece : `${current} ${piece}`;
      }
    }
    if (current !== '') out.push(current);
  }
  return out;
}

function units(text: string, maxChars: number): Unit[] {
  const result: Unit[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const flat = paragraph.replace(/\s*\n\s*/g, ' ').trim();
    if (flat === '') continue;
    // Keep a paragraph whole when it fits; otherwise its sentences are the units.
    splitLong(flat, maxChars).forEach((piece, i) => result.push({ text: piece, paragraph: i === 0 }));
  }
  return result;
}

function join(parts: readonly Unit[]): string {
  return parts.map((u, i) => (i === 0 ? u.text : u.paragraph ? `\n\n${u.text}` : ` ${u.text}`)).join('');
}

/**
 * Cuts cleaned text into chunks of at most `maxChars`, on paragraph boundaries where possible and
 * on sentence boundaries otherwise. Each chunk after the first starts with the last sentences of
 * the one before it (up to `overlap` characters), so a fact spanning a boundary stays whole.
 */
export function chunkText(text: string, options: ChunkOptions = {}): string[] {
  const maxChars = Math.max(1, options.maxChars ?? DEFAULT_MAX_CHARS);
  const overlap = Math.max(0, Math.min(options.overlap ?? DEFAULT_OVERLAP, Math.floor(maxChars / 2)));
  const all = units(cleanText(text), maxChars);
  const chunks: string[] = [];
  let current: Unit[] = [];
  let fresh = 0; // units in `current` not carried over from the previous chunk
  const size = (parts: readonly Unit[]) => join(parts).length;

  for (const unit of all) {
    if (current.length > 0 && size([...current, unit]) > maxChars) {
      if (fresh > 0) chunks.push(join(current));
      // Carry the tail sentences that fit in the overlap, if the next unit still fits after them.
      const tail: Unit[] = [];
      for (let i = current.length - 1; i >= 0; i--) {
        const candidate = [current[i] as Unit, ...tail];
        if (size(candidate) > overlap) break;
        tail.unshift(current[i] as Unit);
      }
      while (tail.length > 0 && size([...tail, unit]) > maxChars) tail.shift();
      current = tail.map((u, i) => (i === 0 ? { ...u, paragraph: true } : u));
      fresh = 0;
    }
    current.push(unit);
    fresh++;
  }
  if (fresh > 0) chunks.push(join(current));
  return chunks;
}

export interface Passage {
  text: string;
  sourceId: string;
  knowledgeBaseId: string;
  score: number;
}

type KnowledgeStore = Pick<Repositories, 'knowledge'>;

/** The `k` passages of the given bases that best answer `query` (empty when nothing matches). */
export async function retrieve(
  store: KnowledgeStore,
  workspaceId: string,
  baseIds: readonly string[],
  query: string,
  k = 3,
): Promise<Passage[]> {
  const hits: KnowledgeHit[] = await store.knowledge.search(workspaceId, baseIds, query, k);
  return hits.map((h) => ({
    text: h.text,
    sourceId: h.sourceId,
    knowledgeBaseId: h.knowledgeBaseId,
    score: h.score,
  }));
}

/** Cleans and chunks the source's text, then stores and indexes it. Null when the base is unknown. */
export async function ingestSource(
  store: KnowledgeStore,
  workspaceId: string,
  baseId: string,
  source: NewKnowledgeSource,
  options: ChunkOptions = {},
): Promise<KnowledgeSource | null> {
  const content = cleanText(source.content);
  return store.knowledge.addSource(workspaceId, baseId, { ...source, content }, chunkText(content, options));
}

/** Replaces a source's text and re-indexes it. Null when the source is unknown. */
export async function reingestSource(
  store: KnowledgeStore,
  workspaceId: string,
  sourceId: string,
  source: NewKnowledgeSource,
  options: ChunkOptions = {},
): Promise<KnowledgeSource | null> {
  const content = cleanText(source.content);
  return store.knowledge.replaceSource(
    workspaceId,
    sourceId,
    { ...source, content },
    chunkText(content, options),
  );
}

/** Formats passages for an LLM prompt, numbered, most relevant first. */
export function formatPassages(passages: readonly Passage[]): string {
  return passages.map((p, i) => `[${i + 1}] ${p.text}`).join('\n\n');
}

export {
  MAX_SOURCE_BYTES,
  SOURCE_FETCH_TIMEOUT_MS,
  SourceError,
  fetchSource,
  htmlTitle,
  htmlToText,
  pdfToText,
  type Fetched,
  type SourceFetchOptions,
} from './sources.ts';
