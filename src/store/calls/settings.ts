// What a call keeps beside its columns (`CallSettings`), and how the stored JSON is read back.

/**
 * What a call keeps beside its columns, stored as JSON and parsed once on read (`parseCallSettings`).
 */
export interface CallSettings {
  /** The carrier the call runs on (`sim`, `sip`, `twilio`, `ws`...). */
  provider?: string;
  /** The call's own prompt and greeting (POST /v2/calls `prompt`, `greeting`) over the agent's. */
  prompt?: string;
  greeting?: string;
  /** Inbound: the agent the number names, before the inbound webhook chose one. */
  default_agent?: string | null;
  /** Inbound: the agent the call was routed away from. */
  routed_from?: string;
  recording_url?: string;
  /** Its node died mid-call: what was said up to then is kept (src/calls/cut-short.ts). */
  cut_short?: boolean;
}

/** The known fields of stored settings, each of its type; anything else is dropped. */
export function parseCallSettings(raw: unknown): CallSettings {
  if (typeof raw !== 'object' || raw === null) return {};
  const o = raw as Record<string, unknown>;
  const text = (key: string) => (typeof o[key] === 'string' ? { [key]: o[key] } : {});
  return {
    ...text('provider'),
    ...text('prompt'),
    ...text('greeting'),
    ...(typeof o.default_agent === 'string' || o.default_agent === null
      ? { default_agent: o.default_agent }
      : {}),
    ...text('routed_from'),
    ...text('recording_url'),
    ...(typeof o.cut_short === 'boolean' ? { cut_short: o.cut_short } : {}),
  };
}
