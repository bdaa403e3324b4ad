import type { ToolSpec } from '../providers/index.ts';

// Tools the model may call during a conversation. The action kinds (extraction, HTTP calls,
// booking, transfer...) register here in a later step; the engine itself ships `end_call`.

export interface ToolContext {
  signal?: AbortSignal;
}

/** What a tool hands back to the model (JSON-serializable) and, optionally, a line to say now. */
export interface ToolOutcome {
  result: unknown;
  say?: string;
  /** The agent's part is over (a transfer handed the call to a person): no more model turns. */
  endsConversation?: boolean;
}

export interface Tool {
  spec: ToolSpec;
  /** Said before the tool runs, so the other side is not left in silence (a custom action's
   * `speech_while_using_the_tool`). */
  messageBefore?: string;
  execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome>;
}

export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  register(tool: Tool): this {
    if (this.#tools.has(tool.spec.name)) throw new Error(`tool ${tool.spec.name} is already registered`);
    this.#tools.set(tool.spec.name, tool);
    return this;
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  specs(): ToolSpec[] {
    return [...this.#tools.values()].map((t) => t.spec);
  }
}
