import type { CustomActionConfig, CustomActionVariable } from './custom.ts';

// One agent's settings of an attached custom action (the published attach body's `items`):
// `attachment_type: before` runs it before the conversation like `run_action_before_call_start`;
// `trigger_condition` is the agent's own "when to use it", offered to the model as the tool's
// description; `input_variables_mapping` fills a variable with a fixed value for that agent
// (`source: hardcoded`: the model is no longer asked for it) or rewords what the model is told
// about it (`source: llm` with `llm_config`). The action's stored configuration never changes.

export interface VariableMapping {
  variable_name: string;
  source: string;
  hardcoded_value?: string | null;
  llm_config?: { description?: string | null; example?: string | null; required?: boolean | null } | null;
}

export interface CustomActionAttachment {
  attachmentType: 'before' | 'during' | 'after';
  triggerCondition: string | null;
  inputVariablesMapping: readonly VariableMapping[];
}

/** The configuration a custom action runs with for one agent. */
export function customActionForAttachment(
  config: CustomActionConfig,
  attachment: CustomActionAttachment,
): CustomActionConfig {
  const byName = new Map(attachment.inputVariablesMapping.map((m) => [m.variable_name, m]));
  const during: CustomActionVariable[] = [];
  const fixed = [...(config.variables_before_the_call ?? [])];
  for (const variable of config.variables_during_the_call ?? []) {
    const mapping = byName.get(variable.name);
    if (mapping?.source === 'hardcoded') {
      // Last, so it wins over a fixed value of the same name (the model's argument no longer can).
      fixed.push({ key: variable.name, value: mapping.hardcoded_value ?? '' });
      continue;
    }
    const llm = mapping?.source === 'llm' ? mapping.llm_config : null;
    during.push({
      ...variable,
      ...(typeof llm?.description === 'string' ? { description: llm.description } : {}),
      ...(typeof llm?.example === 'string' ? { example: llm.example } : {}),
    });
  }
  return {
    ...config,
    ...(attachment.triggerCondition ? { description: attachment.triggerCondition } : {}),
    ...(attachment.attachmentType === 'before' ? { run_action_before_call_start: true } : {}),
    ...(config.variables_during_the_call ? { variables_during_the_call: during } : {}),
    ...(fixed.length > 0 ? { variables_before_the_call: fixed } : {}),
  };
}
