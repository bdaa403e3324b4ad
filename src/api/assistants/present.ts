import { toIso } from '../../core/index.ts';
import type { VoiceChoice } from '../../speech/index.ts';
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
  voice: VoiceChoice | null = null,
) {
  const s = agent.spec;
  return {
    model_id: agent.id,
    type: agent.type,
    name: agent.name,
    description: s.description ?? '',
    agent: s.agent ?? {},
    // The published API types these as plain strings and objects: empty when not set, not null.
    phone_number: s.phone_number ?? '',
    external_webhook_url: s.external_webhook_url ?? '',
    inbound_call_webhook_url: s.inbound_call_webhook_url ?? '',
    is_recording: s.is_recording ?? false,
    max_duration: s.max_duration ?? { is_enabled: false },
    voicemail_message: s.voicemail_message ?? { enabled: false },
    end_call_reasons: s.end_call_reasons ?? [],
    knowledge_base_id: knowledgeBaseId,
    live_version_id: agent.liveVersionId,
    attached_phone_numbers: numbers.map((n) => ({ number: n.number, sid: n.id, slug: n.slug })),
    ...agentActionFields(actions),
    ...(voice ? { voice_resolution: presentVoiceChoice(voice) } : {}),
    created_at: toIso(agent.createdAt),
    updated_at: toIso(agent.updatedAt),
  };
}

/** Which voice the agent's calls speak with (docs/speech-providers.md). */
export function presentVoiceChoice(v: VoiceChoice) {
  return {
    voice_id: v.requested,
    available: v.available,
    speaks_with: v.voice,
    provider: v.provider,
    reason: v.reason ?? null,
  };
}
