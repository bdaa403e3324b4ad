import type { Clock } from '../core/index.ts';
import { collectChat, type LLM } from '../providers/index.ts';

// The summary a warm transfer with context tells the person who takes the call
// (`warm_transfer_with_context`, its `summarization_prompt`): the agent's model writes it from the
// transcript so far. The offline builtin model writes no prose, and a model that fails or says
// nothing must not stop the transfer: then the summary is what the caller said last.

const DEFAULT_PROMPT =
  'You are handing this phone call to a colleague. In two short spoken sentences, tell them who ' +
  'is calling and what the caller needs. No greeting, no lists.';
const SUMMARY_TIMEOUT_MS = 8000;
const CALLER_LINES = 2;

export interface SummaryOptions {
  llm: LLM;
  model?: string;
  /** The transcript so far (`bot:`/`human:` lines). */
  transcript: string;
  prompt?: string;
  clock: Clock;
}

export async function summarizeCall(options: SummaryOptions): Promise<string> {
  const fallback = callerWords(options.transcript);
  if (options.llm.name === 'builtin' || options.transcript.trim() === '') return fallback;
  const abort = new AbortController();
  const done = new AbortController();
  options.clock.sleep(SUMMARY_TIMEOUT_MS, done.signal).then(
    () => abort.abort(),
    () => undefined,
  );
  try {
    const result = await collectChat(
      options.llm.chat({
        ...(options.model ? { model: options.model } : {}),
        messages: [
          { role: 'system', content: options.prompt?.trim() || DEFAULT_PROMPT },
          { role: 'user', content: options.transcript },
        ],
        toolChoice: 'none',
        temperature: 0,
        maxTokens: 120,
        signal: abort.signal,
      }),
    );
    return (result.finishReason !== 'aborted' && result.text.trim()) || fallback;
  } catch {
    return fallback;
  } finally {
    done.abort();
  }
}

function callerWords(transcript: string): string {
  const said = transcript
    .split('\n')
    .filter((line) => line.startsWith('human:'))
    .map((line) => line.slice('human:'.length).trim())
    .filter(Boolean)
    .slice(-CALLER_LINES);
  return said.length > 0 ? `The caller said: ${said.join(' ')}` : '';
}
