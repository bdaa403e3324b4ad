import { PLATFORM_MODEL, effectiveModel, type Plan } from '../../core/index.ts';
import type { LLM } from './types.ts';

// Which model runs an agent (spec, Versioning rule 5). The platform model is the configured
// OpenAI-compatible model, or the offline builtin when none is configured. An agent's `llm`
// naming another model runs that model only on enterprise plans, and only when an
// OpenAI-compatible endpoint is configured to serve it; otherwise the platform model runs.

export interface ModelChoice {
  llm: LLM;
  /** The model name sent to `llm`; undefined lets the adapter use its own default. */
  model: string | undefined;
}

export interface ModelRouterOptions {
  platform: LLM;
  /** Serves a named model on the configured endpoint; absent when no endpoint is configured. */
  named?: (model: string) => LLM;
}

export interface ModelRouter {
  route(agentLlm: string | undefined, plan: Plan): ModelChoice;
}

export function createModelRouter(options: ModelRouterOptions): ModelRouter {
  const named = new Map<string, LLM>();
  return {
    route(agentLlm, plan) {
      const model = effectiveModel(agentLlm, plan);
      if (model === PLATFORM_MODEL || !options.named) return { llm: options.platform, model: undefined };
      let llm = named.get(model);
      if (!llm) {
        llm = options.named(model);
        named.set(model, llm);
      }
      return { llm, model };
    },
  };
}
