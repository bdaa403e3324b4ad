import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// A number's SIP trunk as the carrier uses it, and the directory it reads trunks from (the store,
// wired in app.ts). Telephony knows no API shapes: the settings come already typed.

export interface SipTrunkSettings {
  host: string;
  port?: number | undefined;
  transport?: 'udp' | 'tcp' | 'tls' | undefined;
  /** Credentials for the trunk's challenges (calls and registration). */
  username?: string | undefined;
  password?: string | undefined;
  /** Registration auth username when it differs from `username`. */
  authUsername?: string | undefined;
  /** `host[:port]` or a SIP URI every request of ours goes through. */
  outboundProxy?: string | undefined;
  /** Register with the trunk (uac_enabled). */
  register?: boolean | undefined;
  /** Registration expiry asked for, seconds. */
  registerExpires?: number | undefined;
  /**
   * Who may call in: addresses or CIDR ranges. None given: the trunk host's own addresses (its
   * name resolved).
   */
  allowedAddresses?: string[] | undefined;
  /** Digest credentials a caller not on the list may authenticate with. */
  inboundUsername?: string | undefined;
  inboundPassword?: string | undefined;
}

export interface SipInboundMatch {
  workspaceId: string;
  numberId: string;
  trunk: SipTrunkSettings;
}

export interface SipRegistrationTarget {
  numberId: string;
  workspaceId: string;
  number: string;
  trunk: SipTrunkSettings;
}

export type SipRegistrationState =
  | { state: 'registered'; expiresAt: number }
  | { state: 'failed'; error: string; retryAt: number }
  | { state: 'registering' };

export interface SipNumberDirectory {
  /** The trunk of our number `from` in the workspace placing the call; null when it has none. */
  outbound(from: string, workspaceId: string | null): Promise<SipTrunkSettings | null>;
  /** Every SIP number equal to `number` (E.164), whatever the workspace. */
  inbound(number: string): Promise<SipInboundMatch[]>;
  /** Numbers whose trunk asks us to register. */
  registering(): Promise<SipRegistrationTarget[]>;
  /** Records a number's registration state (the number's read shows it). */
  saveRegistration(numberId: string, state: SipRegistrationState): Promise<void>;
}

/** Whether `address` may call in on `trunk`: on its allow-list, or one of its host's addresses. */
export async function allowedSource(address: string, trunk: SipTrunkSettings): Promise<boolean> {
  const list = new BlockList();
  const add = (entry: string) => {
    const [base = '', bits] = entry.split('/');
    const family = isIP(base) === 6 ? 'ipv6' : 'ipv4';
    if (!isIP(base)) return;
    if (bits !== undefined) list.addSubnet(base, Number(bits), family);
    else list.addAddress(base, family);
  };
  if (trunk.allowedAddresses && trunk.allowedAddresses.length > 0) {
    for (const entry of trunk.allowedAddresses) add(entry);
  } else if (isIP(trunk.host)) add(trunk.host);
  else {
    try {
      for (const found of await lookup(trunk.host, { all: true })) add(found.address);
    } catch {
      return false; // an unresolvable trunk host admits nobody by address
    }
  }
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return list.check(address, family);
}

/** The address to send to for `host` (a name resolved; the first address). */
export async function resolveHost(host: string): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return bare;
  const found = await lookup(bare);
  return found.address;
}
