// Variables collected during a conversation (the payload's `collected_variables`): keyed by
// name, each `{value, collected}`. Only collected ones are reported, and system variables
// (date and time of the call) never are.

export type CollectedValue = string | number | boolean | null;

export interface CollectedVariable {
  value: CollectedValue;
  collected: boolean;
}

/** The engine's system variables (conversation/variables.ts `systemVariables`). */
export const SYSTEM_VARIABLE_NAMES: readonly string[] = [
  'current_date',
  'current_time',
  'current_day',
  'current_datetime',
  'timezone',
];

export class CollectedVariables {
  readonly #values = new Map<string, CollectedVariable>();
  readonly #system: ReadonlySet<string>;

  constructor(
    options: { systemNames?: readonly string[]; initial?: Record<string, CollectedVariable> } = {},
  ) {
    this.#system = new Set(options.systemNames ?? SYSTEM_VARIABLE_NAMES);
    for (const [name, v] of Object.entries(options.initial ?? {})) this.#values.set(name, { ...v });
  }

  /** Declares a variable that may be collected later (reported only once collected). */
  declare(name: string): void {
    if (!this.#values.has(name)) this.#values.set(name, { value: null, collected: false });
  }

  set(name: string, value: CollectedValue): void {
    this.#values.set(name, { value, collected: true });
  }

  get(name: string): CollectedVariable | undefined {
    const v = this.#values.get(name);
    return v ? { ...v } : undefined;
  }

  /** `collected_variables`: only the collected ones, system variables left out. */
  collected(): Record<string, CollectedVariable> {
    const out: Record<string, CollectedVariable> = {};
    for (const [name, v] of this.#values) {
      if (v.collected && !this.#system.has(name)) out[name] = { value: v.value, collected: true };
    }
    return out;
  }

  /** Every declared or collected variable, for storing and continuing later. */
  snapshot(): Record<string, CollectedVariable> {
    return Object.fromEntries([...this.#values].map(([k, v]) => [k, { ...v }]));
  }
}
