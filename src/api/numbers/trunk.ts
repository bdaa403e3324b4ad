import { isIP } from 'node:net';
import { invalidInput } from '../../core/index.ts';
import { readSipTrunk, type SipTransportSetting, type SipTrunk } from '../../store/index.ts';

// A number's carrier settings from either body a client sends: Parley's own (`provider` and a
// `sip` object) or the published one (`provider_name` and flat SIP trunk fields such as
// `termination_uri`, `trunk_username`, `trunk_pwd`). Both end up as Parley's `provider` and the
// stored `sip` settings; the published provider name is kept as a label. See docs/api-notes.md,
// "Phone numbers".

export const PROVIDERS = ['sim', 'sip', 'twilio', 'telnyx', 'custom'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const PROVIDER_NAMES = [
  'twilio',
  'telnyx',
  'vonage',
  'ring_central',
  'ringcx',
  'custom',
  'zoom',
  'five9',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Provider names whose SIP domain is known when the client gives none. */
const AUTO_HOSTS: Partial<Record<string, string>> = { ringcx: 'sip.ringcentral.com', zoom: 'sip.zoom.com' };

export const DEFAULT_SIP_PORT = 5060;
export const DEFAULT_UAC_REGISTER_EXPIRES = 300;

type Transport = SipTransportSetting;

export type { SipTrunk };

/** What a body may say about the carrier (import and update share it). */
export interface CarrierInput {
  provider?: Provider;
  sip?: {
    host: string;
    port?: number;
    transport?: Transport;
    username?: string;
    password?: string;
    uac_register_expires?: number;
    allowed_addresses?: string[];
    inbound_username?: string;
    inbound_password?: string;
  };
  provider_name?: ProviderName;
  termination_uri?: string;
  sip_term_uri?: string;
  trunk_username?: string;
  trunk_pwd?: string;
  sip_outbound_proxy?: string;
  sip_auth_username?: string;
  uac_enabled?: boolean;
  uac_register_expires?: number;
  sip_allowed_addresses?: string[];
  sip_inbound_username?: string;
  sip_inbound_password?: string;
}

export interface Carrier {
  provider: string;
  sip: SipTrunk | null;
  providerName: string | null;
}

/** The published flat trunk fields, in the order a 400 names them. */
const FLAT_FIELDS = [
  'termination_uri',
  'sip_term_uri',
  'trunk_username',
  'trunk_pwd',
  'sip_outbound_proxy',
  'sip_auth_username',
  'uac_enabled',
  'uac_register_expires',
  'sip_allowed_addresses',
  'sip_inbound_username',
  'sip_inbound_password',
] as const;

const CARRIER_FIELDS = ['provider', 'sip', 'provider_name', ...FLAT_FIELDS] as const;

/** Whether the body says anything about the carrier. */
export function touchesCarrier(body: CarrierInput): boolean {
  return CARRIER_FIELDS.some((f) => body[f] !== undefined);
}

const TRANSPORTS: readonly string[] = ['udp', 'tcp', 'tls'];

// [sip:|sips:][user@]host[:port][;param...]; host is a name, an IPv4 address or a bracketed IPv6.
const SIP_URI =
  /^(?:(sips?):)?(?:[^@;\s]+@)?(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::(\d{1,5}))?((?:;[^;\s]*)*)$/i;

/** The host, port and transport of a termination URI; a 400 naming `field` when it is not one. */
export function parseTerminationUri(
  raw: string,
  field: string,
): { host: string; port?: number; transport?: Transport } {
  const bad = (why: string) => invalidInput(`body.${field} ${why}`, ['body', field], 'value_error');
  const match = SIP_URI.exec(raw);
  if (!match) throw bad('is not a SIP domain or URI (such as example.pstn.twilio.com or sip:host:5061)');
  const [, scheme, host = '', portText, params = ''] = match;
  const out: { host: string; port?: number; transport?: Transport } = { host: host.toLowerCase() };
  if (portText !== undefined) {
    const port = Number(portText);
    if (port < 1 || port > 65_535) throw bad('has a port outside 1..65535');
    out.port = port;
  }
  if (scheme?.toLowerCase() === 'sips') out.transport = 'tls';
  for (const param of params.split(';').slice(1)) {
    const [name = '', value = ''] = param.split('=');
    if (name.toLowerCase() !== 'transport') continue;
    const transport = value.toLowerCase();
    if (!TRANSPORTS.includes(transport)) throw bad('has a transport other than udp, tcp or tls');
    out.transport = transport as Transport;
  }
  return out;
}

/** The termination URI shown for a trunk: as given, else built from its host, port and transport. */
export function termUriOf(trunk: SipTrunk): string {
  if (trunk.term_uri) return trunk.term_uri;
  const port = trunk.port !== undefined && trunk.port !== DEFAULT_SIP_PORT ? `:${trunk.port}` : '';
  const transport = trunk.transport && trunk.transport !== 'udp' ? `;transport=${trunk.transport}` : '';
  return `${trunk.host}${port}${transport}`;
}

/** `10.0.0.1`, `2001:db8::1`, `10.0.0.0/24` or `2001:db8::/32`. */
function isAddressOrRange(entry: string): boolean {
  const [base = '', bits, extra] = entry.split('/');
  const family = isIP(base);
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** The stored settings, typed; null for none (or anything without a host). */
export const readTrunk = readSipTrunk;

/**
 * The carrier after applying `body` to `current` (null on import). Bad combinations are a 400
 * naming the field: SIP settings for a provider other than `sip`, both spellings of the settings
 * at once, a SIP trunk without a domain, registration without credentials.
 */
export function resolveCarrier(body: CarrierInput, current: Carrier | null): Carrier {
  // Parley's `provider` alone leaves no published name (it is then derived from the provider).
  const providerName =
    body.provider_name ?? (body.provider !== undefined ? null : (current?.providerName ?? null));
  // The published import is always a SIP trunk (`custom` when no provider_name is given).
  const provider =
    body.provider ?? (body.provider_name !== undefined || current === null ? 'sip' : current.provider);
  // An empty termination URI means none (the published strings are '' when unset).
  const termField = body.termination_uri ? 'termination_uri' : body.sip_term_uri ? 'sip_term_uri' : null;
  const flat = FLAT_FIELDS.filter((f) =>
    f === 'termination_uri' || f === 'sip_term_uri' ? f === termField : body[f] !== undefined,
  );
  const [firstFlat] = flat;

  if (body.sip && firstFlat) {
    throw invalidInput(
      `body.${firstFlat}: give the SIP settings either as body.sip or as the published flat fields, not both`,
      ['body', firstFlat],
      'not_accepted',
    );
  }
  if (provider !== 'sip') {
    if (body.sip) {
      throw invalidInput('body.sip is only accepted when provider is sip', ['body', 'sip'], 'not_accepted');
    }
    if (firstFlat) {
      throw invalidInput(
        `body.${firstFlat} is only accepted for a SIP trunk number (provider sip, or any provider_name)`,
        ['body', firstFlat],
        'not_accepted',
      );
    }
    return { provider, sip: null, providerName };
  }

  const trunk: SipTrunk = body.sip
    ? { ...body.sip }
    : current?.provider === 'sip' && current.sip
      ? { ...current.sip }
      : { host: '' };
  if (termField) {
    const raw = (body[termField] ?? '').trim();
    const { host, port, transport } = parseTerminationUri(raw, termField);
    Object.assign(trunk, { host, port, transport, term_uri: raw });
  }
  // '' clears an optional setting.
  const setText = (
    key:
      'username' | 'password' | 'outbound_proxy' | 'auth_username' | 'inbound_username' | 'inbound_password',
    value?: string,
  ) => {
    if (value !== undefined) trunk[key] = value === '' ? undefined : value;
  };
  setText('username', body.trunk_username);
  setText('password', body.trunk_pwd);
  setText('outbound_proxy', body.sip_outbound_proxy);
  setText('auth_username', body.sip_auth_username);
  setText('inbound_username', body.sip_inbound_username);
  setText('inbound_password', body.sip_inbound_password);
  if (body.sip_allowed_addresses !== undefined) trunk.allowed_addresses = body.sip_allowed_addresses;
  const listField = body.sip ? 'sip.allowed_addresses' : 'sip_allowed_addresses';
  (trunk.allowed_addresses ?? []).forEach((entry, i) => {
    if (!isAddressOrRange(entry)) {
      throw invalidInput(
        `body.${listField}[${i}] is not an IP address or CIDR range`,
        ['body', ...listField.split('.'), i],
        'value_error',
      );
    }
  });
  if (body.uac_enabled !== undefined) trunk.uac_enabled = body.uac_enabled;
  if (body.uac_register_expires !== undefined) trunk.uac_register_expires = body.uac_register_expires;

  if (!trunk.host) {
    const auto = providerName ? AUTO_HOSTS[providerName] : undefined;
    if (auto) {
      trunk.host = auto;
    } else if (body.provider === 'sip') {
      throw invalidInput('body.sip is required when provider is sip', ['body', 'sip'], 'missing');
    } else {
      throw invalidInput(
        `body.termination_uri is required for provider_name ${providerName ?? 'custom'}: the SIP domain calls are sent to`,
        ['body', 'termination_uri'],
        'missing',
      );
    }
  }
  if (trunk.uac_enabled) {
    for (const [field, value] of [
      ['trunk_username', trunk.username],
      ['trunk_pwd', trunk.password],
    ] as const) {
      if (!value) {
        throw invalidInput(`body.${field} is required when uac_enabled is true`, ['body', field], 'missing');
      }
    }
  }
  // Keys left undefined are not stored (JSON drops them).
  return { provider, sip: trunk, providerName };
}
