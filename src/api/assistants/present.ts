import { toIso } from '../../core/index.ts';
import type { Action, Agent, PhoneNumber } from '../../store/index.ts';
import { agentActionFields } from '../actions/present.ts';

/**
 * The agent as reads return it (WIRE.md section 2). `actions` are its attached actions when the
 * read asked for them (include_actions=true); otherwise `actions` and `input_variables` are empty.
 * `knowledge_base_id` is the attached knowledge base, if any. Unset strings read as `""` and unset
 * `max_duration` / `voicemail_message` as disabled, as the published API types them.
 */
export function presentAgent(
  agent: Agent,
  numbers: PhoneNumber[],
  actions: Action[] = [],
  knowledgeBaseId: string | null = null,
) {
  const s = agent.spec;
  return {
    model_id: agent.id,
    type: agent.type,
    name: agent.name,
    description: (s.description as string | undefined) ?? '',
    agent: (s.agent as Record<string, unknown> | undefined) ?? {},
    // The published API types these as plain strings and objects: empty when not set, not null.
    phone_number: (s.phone_number as string | undefined) ?? '',
    external_webhook_url: (s.external_webhook_url as string | undefined) ?? '',
    inbound_call_webhook_url: (s.inbound_call_webhook_url as string | undefined) ?? '',
    is_recording: (s.is_recording as boolean | undefined) ?? false,
    max_duration: (s.max_duration as object | undefined) ?? { is_enabled: false },
    voicemail_message: (s.voicemail_message as object | undefined) ?? { enabled: false },
    end_call_reasons: (s.end_call_reasons as string[] | undefined) ?? [],
    knowledge_base_id: knowledgeBaseId,
    attached_phone_numbers: numbers.map((n) => ({ number: n.number, sid: n.id, slug: n.slug })),
    ...agentActionFields(actions),
    created_at: toIso(agent.createdAt),
    updated_at: toIso(agent.updatedAt),
  };
}
