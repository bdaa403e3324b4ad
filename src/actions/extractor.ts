import type { ExtractorKind, InformationExtractorConfig } from '../core/index.ts';
import type { ActionRecorder } from './recorder.ts';
import { sanitizeToolName, type ActionTool } from './types.ts';
import type { CollectedValue, CollectedVariables } from './variables.ts';

// INFORMATION_EXTRACTOR (WIRE.md section 8) as a tool: the model calls `extract_<identifier>`
// with `{value}` when the conversation reveals it; the value is checked against the kind and
// stored in the call's collected variables. A bad value is a failed attempt, and the model is
// told what was wrong so it can call again (that retry is attempt 2).
// Not done here: a final extraction pass over the whole transcript after the call.

export const EXTRACT_INFO_ACTION_TYPE = 'extract_info_action_type';

/** The stored configuration (src/core/action-config.ts). */
export type { ExtractorKind, InformationExtractorConfig };

export interface ExtractorDeps {
  variables: CollectedVariables;
  recorder?: ActionRecorder;
  action_id?: string;
}

export function extractorToolName(identifier: string): string {
  return sanitizeToolName(`extract_${identifier}`);
}

function valueSchema(config: InformationExtractorConfig): Record<string, unknown> {
  if (config.kind === 'yes_no') return { type: 'boolean', description: 'true for yes, false for no' };
  if (config.kind === 'single_choice') {
    return { type: 'string', enum: [...(config.choices ?? [])], description: 'exactly one of the choices' };
  }
  return { type: 'string', description: 'the answer, as the person gave it' };
}

type Checked = { ok: true; value: CollectedValue } | { ok: false; error: string };

function check(config: InformationExtractorConfig, value: unknown): Checked {
  if (value === undefined) return { ok: false, error: 'the argument "value" is missing' };
  if (config.kind === 'yes_no') {
    return typeof value === 'boolean'
      ? { ok: true, value }
      : { ok: false, error: '"value" must be a boolean (true for yes, false for no)' };
  }
  if (typeof value !== 'string') return { ok: false, error: '"value" must be a string' };
  const text = value.trim();
  if (config.kind === 'single_choice') {
    const choices = config.choices ?? [];
    const match = choices.find((c) => c.trim().toLowerCase() === text.toLowerCase());
    return match !== undefined
      ? { ok: true, value: match }
      : { ok: false, error: `"value" must be one of: ${choices.map((c) => JSON.stringify(c)).join(', ')}` };
  }
  return text === '' ? { ok: false, error: '"value" must not be empty' } : { ok: true, value: text };
}

export function createInformationExtractorTool(
  config: InformationExtractorConfig,
  deps: ExtractorDeps,
): ActionTool {
  const name = extractorToolName(config.identifier);
  const parameters = {
    type: 'object',
    properties: { value: valueSchema(config) },
    required: ['value'],
    additionalProperties: false,
  };
  const examples = config.examples?.length ? ` Examples: ${config.examples.join('; ')}.` : '';
  const description =
    `Record "${config.identifier}" as soon as the conversation reveals it: ${config.description}.` + examples;
  const hardCoded = {
    identifier: config.identifier,
    condition: config.description,
    choices: config.choices ?? [],
    examples: config.examples ?? [],
  };
  deps.variables.declare(config.identifier);
  return {
    spec: { name, description, parameters },
    async execute(args) {
      const attempt = deps.recorder?.start(
        {
          name,
          action_type: EXTRACT_INFO_ACTION_TYPE,
          action_id: deps.action_id,
          description: config.description,
          parameters_hard_coded: hardCoded,
          parameters_schema: parameters,
          is_interruptible: true,
        },
        args,
      );
      const checked = check(config, args.value);
      if (!checked.ok) {
        attempt?.fail(checked.error);
        return { result: { ok: false, error: checked.error } };
      }
      deps.variables.set(config.identifier, checked.value);
      attempt?.succeed({ [config.identifier]: checked.value });
      return { result: { ok: true, identifier: config.identifier, value: checked.value } };
    },
  };
}
