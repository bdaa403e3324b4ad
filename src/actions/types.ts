// The shape of a tool as the conversation engine runs it. `actions` may import only `core`
// (DESIGN.md section 2), so the engine's `Tool` is restated here structurally: an `ActionTool`
// can be registered in the engine's `ToolRegistry` as is.

export interface ActionToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments the model sends. */
  parameters: Record<string, unknown>;
}

export interface ActionToolContext {
  signal?: AbortSignal;
}

export interface ActionOutcome {
  /** What the model is told (JSON-serializable). */
  result: unknown;
  /** A line to say now. */
  say?: string;
  /** The agent's part of the conversation is over (the call was handed to a person). */
  endsConversation?: boolean;
}

export interface ActionTool {
  spec: ActionToolSpec;
  /** Said before the tool runs (a custom action's `speech_while_using_the_tool`). */
  readonly messageBefore?: string;
  execute(args: Record<string, unknown>, context: ActionToolContext): Promise<ActionOutcome>;
}

/** Values that fill `{placeholder}`s: prompt variables, lead fields, metadata. */
export type ActionVariables = Record<string, string | number | boolean | null>;

/** Tool names the LLM APIs accept: letters, digits, `_` and `-`, at most 64 characters. */
export function sanitizeToolName(raw: string): string {
  const cleaned = raw
    .trim()
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (cleaned || 'action').slice(0, 64);
}
