import { toIso } from '../../core/index.ts';
import type { AgentSnapshot, AgentVersionSummary } from '../../store/index.ts';

// Agent versions as the API shows them (docs/agent-versions.md). A snapshot reads like the agent
// it was taken from: its fields as the agent accepts them, its actions with their definitions and
// attachment settings, and the knowledge bases it consults (by id: their contents stay live).

export function presentSnapshot(snapshot: AgentSnapshot) {
  return {
    ...snapshot.spec,
    type: snapshot.type,
    name: snapshot.name,
    actions: snapshot.actions.map((a) => ({
      action_id: a.id,
      action_type: a.kind,
      name: a.name,
      config: a.config,
      attachment_type: a.attachment.attachmentType,
      trigger_condition: a.attachment.triggerCondition,
      input_variables_mapping: a.attachment.inputVariablesMapping,
    })),
    knowledge_bases: snapshot.knowledgeBases.map((b) => ({ knowledge_base_id: b.id })),
  };
}

export type PresentedSnapshot = ReturnType<typeof presentSnapshot>;

export function presentVersionSummary(version: AgentVersionSummary, liveVersionId: string | null) {
  return {
    version_id: version.id,
    model_id: version.agentId,
    number: version.number,
    description: version.description,
    is_live: version.id === liveVersionId,
    created_at: toIso(version.createdAt),
  };
}
