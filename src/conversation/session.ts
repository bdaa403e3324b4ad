import { ParleyError, systemClock, type Clock } from '../core/index.ts';
import type { ChatMessage, LLM, ToolCall } from '../providers/index.ts';
import {
  CONVERSATION_COMPLETE,
  END_CALL_TOOL,
  USER_SAID_GOODBYE,
  endCallToolSpec,
  endReasons,
  isPlainGoodbye,
  type AgentEndingConfig,
  type EndReason,
  type Ending,
} from './endings.ts';
import { redactPii } from './redact.ts';
import { ToolRegistry } from './tools.ts';
import { formatTranscript, type TranscriptStyle, type TranscriptTurn } from './transcript.ts';
import { fillPlaceholders, systemVariables, type Variables } from './variables.ts';

// One agent conversation over text turns (DESIGN.md section 1). Phone calls, chats and simulations
// all drive this same class: they hand it what the other side said and deliver what it answers.

export interface AgentConversationConfig extends AgentEndingConfig {
  prompt?: string;
  greeting_message?: string;
  greeting_message_mode?: 'human' | 'agent_static' | 'agent_dynamic';
  timezone?: string;
  redact_pii?: boolean;
}

export interface SessionOptions {
  agent: AgentConversationConfig;
  llm: LLM;
  /** Model name passed to the LLM (see model routing); the adapter's default when absent. */
  model?: string;
  /** Custom variables, lead fields and metadata, by placeholder name. */
  variables?: Variables;
  style: TranscriptStyle;
  clock?: Clock;
  tools?: ToolRegistry;
  /** The conversation ends after this many user turns. */
  maxTurns?: number;
  /** Model calls allowed in one turn (each tool round is one). */
  maxModelCallsPerTurn?: number;
  /** Passages relevant to what the user just said (the knowledge base's retrieval). */
  knowledge?: (query: string, signal?: AbortSignal) => Promise<string[]>;
}

export interface TurnOptions {
  signal?: AbortSignal;
  /** Each piece of the reply as it is produced (for speech synthesis while the model streams). */
  onText?: (text: string) => void;
  /**
   * Called when the model calls a tool, before it runs; the function it returns, if any, is
   * called once the tool has finished (the voice session fills a slow tool's silence).
   */
  onToolCall?: (name: string) => (() => void) | void;
}

export interface TurnResult {
  /** What the agent says; null when it says nothing (greeting mode `human`). */
  reply: string | null;
  /** Set when this turn ended the conversation. */
  ended: Ending | null;
  /** The turn was aborted part-way; `reply` is what had been produced. */
  interrupted: boolean;
}

/** Timing of one model call, ms relative to the call's start. */
export interface ModelCallTiming {
  turn: number;
  startedAt: number;
  firstTokenMs: number | null;
  lastTokenMs: number;
}

export interface ToolCallRecord {
  turn: number;
  name: string;
  arguments: string;
  result: unknown;
  error: string | null;
}

/** Everything a conversation has accumulated, as plain JSON, to store and continue later. */
export interface SessionSnapshot {
  history: ChatMessage[];
  turns: TranscriptTurn[];
  modelCalls: ModelCallTiming[];
  toolCalls: ToolCallRecord[];
  userTurns: number;
  started: boolean;
  ended: Ending | null;
}

export const DEFAULT_MAX_TURNS = 100;
const DEFAULT_MAX_MODEL_CALLS_PER_TURN = 6;
/** Said when the model produced nothing usable for a turn. */
export const FALLBACK_REPLY = "Sorry, I didn't catch that. Could you say it again?";
const GOODBYE_REPLY = 'Thank you, goodbye!';
const DYNAMIC_GREETING_INSTRUCTION =
  'The conversation starts now. Say your opening line to the other person, briefly.';

export class ConversationEndedError extends ParleyError {
  override name = 'ConversationEndedError';
  constructor() {
    super('the conversation has ended', { code: 'conversation_ended', status: 400, category: 'conflict' });
  }
}

export class ConversationSession {
  readonly #options: SessionOptions;
  readonly #clock: Clock;
  readonly #tools: ToolRegistry;
  readonly #reasons: EndReason[];
  readonly #system: string;
  readonly #history: ChatMessage[] = [];
  readonly #turns: TranscriptTurn[] = [];
  readonly #turnListeners = new Set<(turn: TranscriptTurn) => void>();
  readonly #timings: ModelCallTiming[] = [];
  readonly #toolCalls: ToolCallRecord[] = [];
  readonly #variables: Variables;
  /** Placeholders of the prompt and greeting that had no value. */
  readonly unknownVariables: string[];
  #userTurns = 0;
  #started = false;
  #ended: Ending | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: SessionOptions, snapshot?: SessionSnapshot) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#tools = options.tools ?? new ToolRegistry();
    this.#reasons = endReasons(options.agent);
    this.#variables = {
      ...systemVariables(this.#clock.now(), options.agent.timezone ?? 'UTC'),
      ...options.variables,
    };
    const prompt = fillPlaceholders(options.agent.prompt ?? '', this.#variables);
    const greeting = fillPlaceholders(options.agent.greeting_message ?? '', this.#variables);
    this.#system = prompt.text;
    this.unknownVariables = [...new Set([...prompt.unknown, ...greeting.unknown])];
    if (snapshot) {
      const copy = structuredClone(snapshot);
      this.#history.push(...copy.history);
      this.#turns.push(...copy.turns);
      this.#timings.push(...copy.modelCalls);
      this.#toolCalls.push(...copy.toolCalls);
      this.#userTurns = copy.userTurns;
      this.#started = copy.started;
      this.#ended = copy.ended;
    }
  }

  /** The state to store; `new ConversationSession(options, snapshot)` continues from it. */
  snapshot(): SessionSnapshot {
    return structuredClone({
      history: this.#history,
      turns: this.#turns,
      modelCalls: this.#timings,
      toolCalls: this.#toolCalls,
      userTurns: this.#userTurns,
      started: this.#started,
      ended: this.#ended,
    });
  }

  get ended(): Ending | null {
    return this.#ended;
  }

  get userTurns(): number {
    return this.#userTurns;
  }

  /** The turns as stored (masked when the agent has `redact_pii`). */
  get turns(): readonly TranscriptTurn[] {
    return this.#turns;
  }

  get modelCalls(): readonly ModelCallTiming[] {
    return this.#timings;
  }

  get toolCalls(): readonly ToolCallRecord[] {
    return this.#toolCalls;
  }

  transcript(): string {
    return formatTranscript(this.#turns, this.#options.style);
  }

  /** Opens the conversation according to the greeting mode. */
  start(options: TurnOptions = {}): Promise<TurnResult> {
    return this.#serialized(async () => {
      if (this.#started) throw new Error('the conversation has already started');
      this.#started = true;
      const mode = this.#options.agent.greeting_message_mode ?? 'agent_static';
      if (mode === 'human') return { reply: null, ended: null, interrupted: false };
      if (mode === 'agent_static') {
        const text = fillPlaceholders(
          this.#options.agent.greeting_message ?? '',
          this.#variables,
        ).text.trim();
        if (text === '') return { reply: null, ended: null, interrupted: false };
        options.onText?.(text);
        this.#history.push({ role: 'assistant', content: text });
        this.#say(text, false);
        return { reply: text, ended: null, interrupted: false };
      }
      const instruction: ChatMessage = { role: 'system', content: DYNAMIC_GREETING_INSTRUCTION };
      const call = await this.#callModel(0, [instruction], { tools: false, stream: true }, options);
      const text = call.text.trim() || null;
      if (text) {
        this.#history.push({ role: 'assistant', content: text });
        this.#say(text, call.aborted);
      }
      return { reply: text, ended: null, interrupted: call.aborted };
    });
  }

  /**
   * Answers one message of the other side. If the model fails, the message is taken back (the
   * conversation is as it was before) and the error is thrown.
   */
  respond(userText: string, options: TurnOptions = {}): Promise<TurnResult> {
    return this.#serialized(async () => {
      if (this.#ended) throw new ConversationEndedError();
      this.#started = true;
      const historyLength = this.#history.length;
      const turnsLength = this.#turns.length;
      const timingsLength = this.#timings.length;
      const toolCallsLength = this.#toolCalls.length;
      this.#userTurns += 1;
      this.#history.push({ role: 'user', content: userText });
      this.#addTurn({ speaker: 'user', text: this.#stored(userText), at: this.#clock.now() });
      try {
        return await this.#agentTurn(userText, options);
      } catch (err) {
        this.#history.length = historyLength;
        this.#turns.length = turnsLength;
        this.#timings.length = timingsLength;
        this.#toolCalls.length = toolCallsLength;
        this.#userTurns -= 1;
        this.#ended = null;
        throw err;
      }
    });
  }

  /**
   * Records a user message and a reply made outside the model (a fallback line when the model
   * failed), so the conversation shows what the other side saw and can go on.
   */
  recordExchange(userText: string, agentText: string): Promise<void> {
    return this.#serialized(async () => {
      if (this.#ended) throw new ConversationEndedError();
      this.#started = true;
      this.#userTurns += 1;
      this.#history.push({ role: 'user', content: userText }, { role: 'assistant', content: agentText });
      this.#addTurn({ speaker: 'user', text: this.#stored(userText), at: this.#clock.now() });
      this.#say(agentText, false);
    });
  }

  /**
   * Records a line the agent says outside the model (a voicemail message, a closing line at the
   * maximum duration), so the transcript and the model's history show it.
   */
  speak(text: string): Promise<void> {
    return this.#serialized(async () => {
      this.#started = true;
      this.#history.push({ role: 'assistant', content: text });
      this.#say(text, false);
    });
  }

  /**
   * Records what the other side said when no answer follows (a voicemail greeting); with
   * `transcriptOnly`, for the transcript alone (a hello at pick-up: the model need not see it).
   */
  hear(text: string, options: { transcriptOnly?: boolean } = {}): Promise<void> {
    return this.#serialized(async () => {
      this.#started = true;
      if (!options.transcriptOnly) this.#history.push({ role: 'user', content: text });
      this.#addTurn({ speaker: 'user', text: this.#stored(text), at: this.#clock.now() });
    });
  }

  /** Ends the conversation from outside (hang-up, maximum duration...). */
  end(ending: Ending): void {
    this.#ended ??= ending;
  }

  /**
   * After a barge-in, keeps only what was actually delivered of the agent's last turn, in the
   * transcript and in what the model will see next.
   */
  truncateLastAgentTurn(delivered: string): void {
    const turn = this.#turns.at(-1);
    if (!turn || turn.speaker !== 'agent') return;
    turn.text = this.#stored(delivered);
    turn.interrupted = true;
    for (let i = this.#history.length - 1; i >= 0; i--) {
      const message = this.#history[i];
      if (message?.role === 'assistant' && !message.toolCalls) {
        this.#history[i] = { role: 'assistant', content: delivered };
        break;
      }
    }
  }

  async #agentTurn(userText: string, options: TurnOptions): Promise<TurnResult> {
    const turn = this.#userTurns;
    const passages = this.#options.knowledge ? await this.#options.knowledge(userText, options.signal) : [];
    const extra: ChatMessage[] =
      passages.length > 0
        ? [{ role: 'system', content: `## Knowledge\n${passages.map((p) => `- ${p}`).join('\n')}` }]
        : [];
    const parts: string[] = [];
    let interrupted = false;
    const maxCalls = this.#options.maxModelCallsPerTurn ?? DEFAULT_MAX_MODEL_CALLS_PER_TURN;

    for (let call = 0; call < maxCalls && !this.#ended; call++) {
      const result = await this.#callModel(turn, extra, { tools: true, stream: true }, options);
      if (result.text.trim()) parts.push(result.text.trim());
      if (result.aborted) {
        interrupted = true;
        if (result.text) this.#history.push({ role: 'assistant', content: result.text });
        break;
      }
      if (result.toolCalls.length === 0) {
        this.#history.push({ role: 'assistant', content: result.text });
        break;
      }
      this.#history.push({ role: 'assistant', content: result.text, toolCalls: result.toolCalls });
      for (const toolCall of result.toolCalls) {
        const finished = options.onToolCall?.(toolCall.name);
        try {
          const before = this.#tools.get(toolCall.name)?.messageBefore?.trim();
          if (before && !parts.includes(before)) {
            options.onText?.(before);
            parts.push(before);
          }
          const said = await this.#runTool(turn, toolCall, parts.length > 0, options);
          if (said) {
            options.onText?.(said);
            parts.push(said);
          }
        } finally {
          finished?.();
        }
      }
    }

    if (parts.length === 0 && !interrupted && !this.#ended) {
      options.onText?.(FALLBACK_REPLY);
      parts.push(FALLBACK_REPLY);
      this.#history.push({ role: 'assistant', content: FALLBACK_REPLY });
    }
    const reply = parts.join(' ');
    if (reply) this.#say(reply, interrupted);
    if (!this.#ended && isPlainGoodbye(userText)) this.#ended = { kind: 'human_goodbye' };
    if (!this.#ended && this.#userTurns >= (this.#options.maxTurns ?? DEFAULT_MAX_TURNS)) {
      this.#ended = { kind: 'max_turns' };
    }
    const ended = this.#ended;
    return { reply: reply || null, ended, interrupted };
  }

  /** Runs one tool call, records it, and answers the model; returns a line to say, if any. */
  async #runTool(
    turn: number,
    call: ToolCall,
    saidSomething: boolean,
    options: TurnOptions,
  ): Promise<string | null> {
    let args: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(call.arguments || '{}');
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
        args = parsed as Record<string, unknown>;
    } catch {
      args = null;
    }
    const answer = (result: unknown, error: string | null) => {
      this.#toolCalls.push({ turn, name: call.name, arguments: call.arguments, result, error });
      this.#history.push({
        role: 'tool',
        toolCallId: call.id,
        content: JSON.stringify(error ? { error } : (result ?? null)),
      });
    };
    if (args === null) {
      answer(null, 'the arguments are not a JSON object');
      return null;
    }
    if (call.name === END_CALL_TOOL) {
      const reason = typeof args.reason === 'string' ? args.reason : CONVERSATION_COMPLETE;
      answer({ ended: true }, null);
      return this.#endWith(reason, saidSomething, options);
    }
    const tool = this.#tools.get(call.name);
    if (!tool) {
      answer(null, `there is no tool named ${call.name}`);
      return null;
    }
    try {
      const outcome = await tool.execute(args, { signal: options.signal });
      answer(outcome.result, null);
      if (outcome.endsConversation) this.#ended ??= { kind: 'agent_goodbye' };
      return outcome.say ?? null;
    } catch (err) {
      answer(null, err instanceof Error ? err.message : String(err));
      return null;
    }
  }

  /** Records the end for `reason` and produces its closing line. */
  async #endWith(reason: string, saidSomething: boolean, options: TurnOptions): Promise<string | null> {
    const custom = this.#reasons.find((r) => r.reason === reason);
    if (!custom) {
      this.#ended = reason === USER_SAID_GOODBYE ? { kind: 'human_goodbye' } : { kind: 'agent_goodbye' };
      return saidSomething ? null : GOODBYE_REPLY;
    }
    this.#ended = { kind: 'custom_end_call', customReason: custom.reason };
    const closing = fillPlaceholders(custom.closingMessage, this.#variables).text.trim();
    if (custom.closingMode === 'none') return null;
    if (custom.closingMode === 'static') return closing || null;
    const instruction =
      `The conversation is ending because: ${custom.reason}. Say a brief closing line now` +
      (closing ? `, conveying this: ${closing}` : '.');
    const call = await this.#callModel(
      this.#userTurns,
      [{ role: 'system', content: instruction }],
      { tools: false, stream: false },
      options,
    );
    // Delivered as one piece: the model may fall silent, and then the configured text is said.
    const line = call.text.trim() || closing || null;
    if (line) options.onText?.(line);
    return line;
  }

  async #callModel(
    turn: number,
    extra: ChatMessage[],
    mode: { tools: boolean; stream: boolean },
    options: TurnOptions,
  ): Promise<{ text: string; toolCalls: ToolCall[]; aborted: boolean }> {
    const messages: ChatMessage[] = [
      ...(this.#system ? [{ role: 'system' as const, content: this.#system }] : []),
      ...this.#history,
      ...extra,
    ];
    const tools = mode.tools ? [endCallToolSpec(this.#reasons), ...this.#tools.specs()] : undefined;
    let text = '';
    const toolCalls: ToolCall[] = [];
    const stream = mode.stream ? options.onText : undefined;
    for await (const chunk of this.#options.llm.chat({
      model: this.#options.model,
      messages,
      tools,
      toolChoice: mode.tools ? 'auto' : 'none',
      signal: options.signal,
    })) {
      if (chunk.type === 'text') {
        text += chunk.text;
        stream?.(chunk.text);
      } else if (chunk.type === 'tool_call') {
        toolCalls.push(chunk.call);
      } else {
        const { startedAt, firstTokenAt, endedAt } = chunk.timings;
        this.#timings.push({
          turn,
          startedAt,
          firstTokenMs: firstTokenAt === undefined ? null : firstTokenAt - startedAt,
          lastTokenMs: endedAt - startedAt,
        });
        return { text, toolCalls, aborted: chunk.finishReason === 'aborted' };
      }
    }
    throw new Error('the model stream ended without finishing');
  }

  /** Adds an agent turn to the transcript. */
  #say(text: string, interrupted: boolean): void {
    this.#addTurn({
      speaker: 'agent',
      text: this.#stored(text),
      at: this.#clock.now(),
      ...(interrupted ? { interrupted: true } : {}),
    });
  }

  #addTurn(turn: TranscriptTurn): void {
    this.#turns.push(turn);
    for (const listener of this.#turnListeners) listener(turn);
  }

  /**
   * Tells `listener` of each turn as it is added (a media client's live transcript). A listener
   * must not throw. Returns the way to stop.
   */
  onTurn(listener: (turn: TranscriptTurn) => void): () => void {
    this.#turnListeners.add(listener);
    return () => this.#turnListeners.delete(listener);
  }

  #stored(text: string): string {
    return this.#options.agent.redact_pii ? redactPii(text) : text;
  }

  #serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
