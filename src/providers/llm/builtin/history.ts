import type { ChatMessage } from '../types.ts';
import { normalize } from './text.ts';

// Reading the conversation so far: the spoken turns in order (assistant lines and caller lines),
// what the assistant has already said, and which tools have returned results.

export interface Turn {
  role: 'user' | 'assistant';
  text: string;
}

export interface ToolResult {
  name: string;
  content: string;
  ok: boolean;
  /** Index of the result among the spoken turns (the number of turns before it). */
  at: number;
}

export interface History {
  turns: Turn[];
  /** The last caller line, if any. */
  lastUser?: string;
  /** Normalized assistant lines already said. */
  said: Set<string>;
  /** Latest result per tool name. */
  results: Map<string, ToolResult>;
  /** The result in the last message, when the request ends with a tool result. */
  trailingResult?: ToolResult;
  /** How many assistant messages (text or tool calls) came before; varies phrasing and ids. */
  assistantCount: number;
}

/** A tool result that reports a failure: `error...`, `{"error": ...}`, `{"ok": false}`, `invalid...`. */
export function isErrorResult(content: string): boolean {
  const text = content.trim();
  if (/^(?:error|invalid|failed|failure)\b/i.test(text)) return true;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') {
      const record = parsed as Record<string, unknown>;
      return record.error !== undefined && record.error !== null
        ? true
        : record.ok === false || record.success === false;
    }
  } catch {
    // Not JSON: plain text that does not start with an error word is a success.
  }
  return false;
}

export function readHistory(messages: readonly ChatMessage[]): History {
  const turns: Turn[] = [];
  const said = new Set<string>();
  const results = new Map<string, ToolResult>();
  const callNames = new Map<string, string>();
  let lastUser: string | undefined;
  let assistantCount = 0;
  let trailingResult: ToolResult | undefined;
  for (const message of messages) {
    trailingResult = undefined;
    if (message.role === 'user') {
      turns.push({ role: 'user', text: message.content });
      lastUser = message.content;
    } else if (message.role === 'assistant') {
      assistantCount++;
      for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
      if (message.content.trim() !== '') {
        turns.push({ role: 'assistant', text: message.content.trim() });
        said.add(normalize(message.content));
      }
    } else if (message.role === 'tool') {
      const name = callNames.get(message.toolCallId) ?? '';
      const result = {
        name,
        content: message.content,
        ok: !isErrorResult(message.content),
        at: turns.length,
      };
      results.set(name, result);
      trailingResult = result;
    }
  }
  return { turns, lastUser, said, results, trailingResult, assistantCount };
}

/** True when the assistant line contains the question (compared without case or punctuation). */
export function lineAsks(line: string, question: string): boolean {
  const q = normalize(question);
  return q !== '' && ` ${normalize(line)} `.includes(` ${q} `);
}

/** Index of the last assistant turn that asked the question, or -1. */
export function lastAsked(turns: readonly Turn[], question: string): number {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i];
    if (turn?.role === 'assistant' && lineAsks(turn.text, question)) return i;
  }
  return -1;
}

/** The first caller line after the turn index, if any. */
export function userAfter(turns: readonly Turn[], index: number): string | undefined {
  for (let i = index + 1; i < turns.length; i++) {
    const turn = turns[i];
    if (turn?.role === 'user') return turn.text;
  }
  return undefined;
}

/** The last assistant line, if any. */
export function lastAssistant(turns: readonly Turn[]): string | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i];
    if (turn?.role === 'assistant') return turn.text;
  }
  return undefined;
}
