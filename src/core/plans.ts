// Plans and the model rule of the spec's Versioning part, rule 5: on a standard plan an agent's
// `llm` that names a third-party model is stored and echoed, but the agent runs on the platform's
// own model. Enterprise plans run what they ask for.

export const PLANS = ['standard', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** The name of Parley's own model: the configured platform LLM (or the offline builtin). */
export const PLATFORM_MODEL = 'parley';

export function effectiveModel(requested: string | undefined, plan: Plan): string {
  if (!requested || plan !== 'enterprise') return PLATFORM_MODEL;
  return requested;
}
