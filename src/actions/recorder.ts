import { systemClock, toIso, type Clock } from '../core/index.ts';

// The record of the actions run during one call, as the post-call payload carries it
// (voice-agent-api.md, Events): `executed_actions` keeps only the latest run of each action;
// `action_execution_timeline` has one entry per attempt.
//
// Timeline choice: an attempt's entry is appended when it starts (status `started`,
// `finished_at` null) and updated IN PLACE when it finishes (`success` or `failed`), so the
// timeline always holds exactly one entry per attempt. Attempts are numbered from 1 per action
// name; a retry of the same action is attempt 2 and overwrites its `executed_actions` entry.

export type AttemptStatus = 'started' | 'success' | 'failed';

export interface TimelineEntry {
  name: string;
  action_type: string;
  attempt: number;
  status: AttemptStatus;
  failed_reason: string | null;
  started_at: string;
  finished_at: string | null;
  parameters_from_llm: Record<string, unknown>;
  parameters_hard_coded: Record<string, unknown>;
  /** A warm transfer that connected: when the person took the call (voice-agent-api.md, Events). */
  human_connected_at?: string;
  /** A transfer's course: target, mode, method, outcome and the times of its steps. */
  transfer?: Record<string, unknown>;
}

export interface ExecutedAction {
  name: string;
  action_type: string;
  call_id: string;
  model_id: string;
  workspace_id: string;
  description: string;
  parameters_hard_coded: Record<string, unknown>;
  parameters_from_llm: Record<string, unknown>;
  error_message: string | null;
  speak_on_failure: string;
  return_value: Record<string, unknown>;
  is_relevant_action: boolean;
  run_action_before_call_start: boolean;
  /** Epoch seconds of the start of the run. */
  timestamp: number;
  timestamp_datetime: string;
  parameters_schema: Record<string, unknown>;
  message_before_action: string;
  use_hard_coded_message: boolean;
  delay_message_time_seconds: number;
  delay_message: string;
  action_failed_timeout: number;
  real_time_action: boolean;
  is_interruptible: boolean;
  action_id: string;
}

/** Who ran the actions. */
export interface RecorderContext {
  call_id: string;
  model_id: string;
  workspace_id: string;
}

/** What an action declares about itself when a run starts; absent fields take defaults. */
export interface ActionRunInfo {
  name: string;
  action_type: string;
  action_id?: string;
  description?: string;
  parameters_hard_coded?: Record<string, unknown>;
  parameters_schema?: Record<string, unknown>;
  speak_on_failure?: string;
  is_relevant_action?: boolean;
  run_action_before_call_start?: boolean;
  message_before_action?: string;
  use_hard_coded_message?: boolean;
  delay_message_time_seconds?: number;
  delay_message?: string;
  action_failed_timeout?: number;
  real_time_action?: boolean;
  is_interruptible?: boolean;
}

export interface RecorderSnapshot {
  executed_actions: Record<string, ExecutedAction>;
  action_execution_timeline: TimelineEntry[];
}

/** One attempt in progress; finish it exactly once (later calls are ignored). */
export interface ActionAttempt {
  readonly attempt: number;
  succeed(returnValue?: Record<string, unknown>): void;
  fail(reason: string, returnValue?: Record<string, unknown>): void;
  /**
   * Adds what was learned after the attempt finished (a bridged transfer's end) to its timeline
   * entry and to its `return_value`.
   */
  annotate(fields: Pick<TimelineEntry, 'human_connected_at' | 'transfer'>): void;
}

export class ActionRecorder {
  readonly #context: RecorderContext;
  readonly #clock: Clock;
  readonly #executed = new Map<string, ExecutedAction>();
  readonly #timeline: TimelineEntry[] = [];
  readonly #attempts = new Map<string, number>();

  constructor(context: RecorderContext, options: { clock?: Clock; snapshot?: RecorderSnapshot } = {}) {
    this.#context = { ...context };
    this.#clock = options.clock ?? systemClock;
    if (options.snapshot) {
      const copy = structuredClone(options.snapshot);
      for (const [name, entry] of Object.entries(copy.executed_actions)) this.#executed.set(name, entry);
      for (const entry of copy.action_execution_timeline) {
        this.#timeline.push(entry);
        this.#attempts.set(entry.name, Math.max(this.#attempts.get(entry.name) ?? 0, entry.attempt));
      }
    }
  }

  /** Records the start of a run and returns the handle to finish it. */
  start(info: ActionRunInfo, parametersFromLlm: Record<string, unknown> = {}): ActionAttempt {
    const now = this.#clock.now();
    const attempt = (this.#attempts.get(info.name) ?? 0) + 1;
    this.#attempts.set(info.name, attempt);
    const hardCoded = structuredClone(info.parameters_hard_coded ?? {});
    const fromLlm = structuredClone(parametersFromLlm);
    const entry: TimelineEntry = {
      name: info.name,
      action_type: info.action_type,
      attempt,
      status: 'started',
      failed_reason: null,
      started_at: toIso(now),
      finished_at: null,
      parameters_from_llm: fromLlm,
      parameters_hard_coded: hardCoded,
    };
    this.#timeline.push(entry);
    const executed: ExecutedAction = {
      name: info.name,
      action_type: info.action_type,
      call_id: this.#context.call_id,
      model_id: this.#context.model_id,
      workspace_id: this.#context.workspace_id,
      description: info.description ?? '',
      parameters_hard_coded: structuredClone(hardCoded),
      parameters_from_llm: structuredClone(fromLlm),
      error_message: null,
      speak_on_failure: info.speak_on_failure ?? '',
      return_value: {},
      is_relevant_action: info.is_relevant_action ?? true,
      run_action_before_call_start: info.run_action_before_call_start ?? false,
      timestamp: now / 1000,
      timestamp_datetime: toIso(now),
      parameters_schema: structuredClone(info.parameters_schema ?? {}),
      message_before_action: info.message_before_action ?? '',
      use_hard_coded_message: info.use_hard_coded_message ?? false,
      delay_message_time_seconds: info.delay_message_time_seconds ?? 0,
      delay_message: info.delay_message ?? '',
      action_failed_timeout: info.action_failed_timeout ?? 0,
      real_time_action: info.real_time_action ?? true,
      is_interruptible: info.is_interruptible ?? false,
      action_id: info.action_id ?? '',
    };
    // The latest run replaces the earlier one (Map.set keeps the key's first insertion order).
    this.#executed.set(info.name, executed);
    let done = false;
    const finish = (status: 'success' | 'failed', reason: string | null, value?: Record<string, unknown>) => {
      if (done) return;
      done = true;
      entry.status = status;
      entry.failed_reason = reason;
      entry.finished_at = toIso(this.#clock.now());
      executed.error_message = reason;
      if (value) executed.return_value = structuredClone(value);
    };
    return {
      attempt,
      succeed: (value) => finish('success', null, value),
      fail: (reason, value) => finish('failed', reason, value),
      annotate: (fields) => {
        const copy = structuredClone(fields);
        Object.assign(entry, copy);
        executed.return_value = { ...executed.return_value, ...structuredClone(copy) };
      },
    };
  }

  get executedActions(): Record<string, ExecutedAction> {
    return structuredClone(Object.fromEntries(this.#executed));
  }

  get timeline(): TimelineEntry[] {
    return structuredClone(this.#timeline);
  }

  /** Plain JSON; `new ActionRecorder(context, { snapshot })` continues from it. */
  snapshot(): RecorderSnapshot {
    return { executed_actions: this.executedActions, action_execution_timeline: this.timeline };
  }
}
