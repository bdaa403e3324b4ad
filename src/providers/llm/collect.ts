import type { ChatChunk, ChatTimings, FinishReason, ToolCall, Usage } from './types.ts';

export interface CollectedChat {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage?: Usage;
  timings: ChatTimings;
}

/** Reads a whole stream into one result (for callers that need no streaming). */
export async function collectChat(stream: AsyncIterable<ChatChunk>): Promise<CollectedChat> {
  let text = '';
  const toolCalls: ToolCall[] = [];
  for await (const chunk of stream) {
    if (chunk.type === 'text') text += chunk.text;
    else if (chunk.type === 'tool_call') toolCalls.push(chunk.call);
    else
      return {
        text,
        toolCalls,
        finishReason: chunk.finishReason,
        usage: chunk.usage,
        timings: chunk.timings,
      };
  }
  throw new Error('LLM stream ended without a done chunk');
}
