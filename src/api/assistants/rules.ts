import {
  invalidInput,
  isValidTimeZone,
  requireE164,
  type AgentConfig,
  type AgentSpec,
} from '../../core/index.ts';
import { NOT_ACCEPTED_ON_UPDATE, type CreateAgentBody, type UpdateAgentBody } from './schemas.ts';

// Agent rules beyond the schema: URL and time-zone checks, defaults on create, the key-by-key
// merge on update, and the voicemail rule (WIRE.md section 2) checked on the merged result.

const AGENT_DEFAULTS: AgentConfig = {
  greeting_message_mode: 'agent_static',
  language: 'en-US',
  timezone: 'UTC',
};

export function checkHttpUrl(value: string | undefined, loc: string[]): void {
  if (value === undefined || value === '') return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidInput(
      `body.${loc.join('.')} must be an absolute http or https URL`,
      ['body', ...loc],
      'url',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidInput(`body.${loc.join('.')} must use http or https`, ['body', ...loc], 'url');
  }
}

function checkAgentConfig(agent: AgentConfig | undefined): void {
  const tz = agent?.timezone;
  if (tz !== undefined && !isValidTimeZone(tz)) {
    throw invalidInput(`body.agent.timezone "${tz}" is not an IANA time zone`, ['body', 'agent', 'timezone']);
  }
}

/** E.164 form of the agent's number; an empty string clears it. */
function normalizedPhone(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  return requireE164(value, ['body', 'phone_number']);
}

function checkCommon(body: CreateAgentBody | UpdateAgentBody): void {
  checkHttpUrl(body.external_webhook_url, ['external_webhook_url']);
  checkAgentConfig(body.agent);
}

/** The voicemail rule: a voicemail message can only be enabled for agents that wait for a human. */
function checkVoicemail(spec: AgentSpec, blame: 'voicemail' | 'mode'): void {
  const voicemail = spec.voicemail_message;
  const mode = spec.agent?.greeting_message_mode;
  if (!voicemail?.enabled) return;
  if (mode !== 'human') {
    throw blame === 'mode'
      ? invalidInput(
          `body.agent.greeting_message_mode cannot change to "${mode}" while voicemail_message is enabled (it requires human)`,
          ['body', 'agent', 'greeting_message_mode'],
        )
      : invalidInput('body.voicemail_message.enabled requires agent.greeting_message_mode = human', [
          'body',
          'voicemail_message',
          'enabled',
        ]);
  }
  const voicemailMode = voicemail.mode ?? 'exact_message';
  const text = voicemailMode === 'prompt' ? voicemail.prompt : voicemail.exact_message;
  if (!text) {
    const field = voicemailMode === 'prompt' ? 'prompt' : 'exact_message';
    throw invalidInput(
      `body.voicemail_message.${field} is required when voicemail_message is enabled in ${voicemailMode} mode`,
      ['body', 'voicemail_message', field],
    );
  }
}

/** A limit that is on needs a length: `duration_seconds: 0` is accepted only while disabled. */
function checkMaxDuration(spec: AgentSpec): void {
  const limit = spec.max_duration;
  if (limit?.is_enabled === true && limit.duration_seconds === 0) {
    throw invalidInput(
      'body.max_duration.duration_seconds must be at least 1 when max_duration.is_enabled is true',
      ['body', 'max_duration', 'duration_seconds'],
    );
  }
}

/** `obj` without its undefined fields (they are not stored). */
function defined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

export function specForCreate(body: CreateAgentBody): AgentSpec {
  checkCommon(body);
  checkHttpUrl(body.inbound_call_webhook_url, ['inbound_call_webhook_url']);
  const spec = defined<AgentSpec>({
    description: body.description,
    phone_number: normalizedPhone(body.phone_number),
    external_webhook_url: body.external_webhook_url,
    inbound_call_webhook_url: body.inbound_call_webhook_url,
    is_recording: body.is_recording,
    max_duration: body.max_duration,
    voicemail_message: body.voicemail_message,
    end_call_reasons: body.end_call_reasons,
    agent: { ...AGENT_DEFAULTS, ...body.agent },
  });
  checkVoicemail(spec, 'voicemail');
  checkMaxDuration(spec);
  return spec;
}

/**
 * The agent after an update: top-level fields given replace the stored ones, while `agent`,
 * `max_duration` and `voicemail_message` merge key by key, so a partial update changes only what
 * it names.
 */
export function specForUpdate(
  current: AgentSpec,
  body: UpdateAgentBody & Record<string, unknown>,
): AgentSpec {
  for (const field of NOT_ACCEPTED_ON_UPDATE) {
    if (body[field] !== undefined) {
      throw invalidInput(`body.${field} is not accepted on update`, ['body', field], 'not_accepted');
    }
  }
  checkCommon(body);
  const merge = <T extends object>(stored: T | undefined, patch: T | undefined): T | undefined =>
    patch === undefined ? stored : { ...stored, ...patch };
  const next = defined<AgentSpec>({
    ...current,
    description: body.description ?? current.description,
    phone_number: body.phone_number !== undefined ? normalizedPhone(body.phone_number) : current.phone_number,
    external_webhook_url: body.external_webhook_url ?? current.external_webhook_url,
    is_recording: body.is_recording ?? current.is_recording,
    end_call_reasons: body.end_call_reasons ?? current.end_call_reasons,
    max_duration: merge(current.max_duration, body.max_duration),
    voicemail_message: merge(current.voicemail_message, body.voicemail_message),
    agent: merge(current.agent, body.agent),
  });
  // Blame the mode when it moved while voicemail stays enabled; blame voicemail when this update
  // is the one that enables it (an update that only edits the voicemail text did not cause it).
  const modeChanged = body.agent?.greeting_message_mode !== undefined;
  const enablesVoicemail = body.voicemail_message?.enabled === true;
  checkVoicemail(next, modeChanged && !enablesVoicemail ? 'mode' : 'voicemail');
  checkMaxDuration(next);
  return next;
}
