import { Webhook } from 'standardwebhooks';

// Standard Webhooks signing (WIRE.md section 9): `webhook-id`, `webhook-timestamp` (seconds) and
// `webhook-signature` = `v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>`. With more
// than one secret (the 24 h after a rotation) the header carries one signature per secret,
// space-separated, so a receiver holding either secret verifies.

export const WEBHOOK_USER_AGENT = 'Parley-Webhooks/1';

export interface SignWebhookInput {
  /** The message id: the delivery id, the same on every retry. */
  id: string;
  /** When the attempt is made (ms since the epoch); sent in whole seconds. */
  timestampMs: number;
  /** The exact body that is sent. */
  body: string;
  /** The current secret first; the previous one while it is still valid. */
  secrets: readonly string[];
}

const signers = new Map<string, Webhook>();

/** Secrets are few (one or two per workspace); a Webhook instance decodes its key once. */
function signer(secret: string): Webhook {
  let wh = signers.get(secret);
  if (!wh) {
    if (signers.size >= 1000) signers.clear();
    wh = new Webhook(secret);
    signers.set(secret, wh);
  }
  return wh;
}

/**
 * The signature headers: no secret (they prove one body, at one time), so they follow a redirect to
 * another origin, where a moved receiver still verifies them.
 */
export const SIGNATURE_HEADERS: readonly string[] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

/** The headers of one signed webhook request. */
export function signWebhook(input: SignWebhookInput): Record<string, string> {
  if (input.secrets.length === 0) throw new Error('signWebhook: no secret');
  const date = new Date(Math.floor(input.timestampMs / 1000) * 1000);
  const signatures = [...new Set(input.secrets)].map((s) => signer(s).sign(input.id, date, input.body));
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': input.id,
    'webhook-timestamp': String(Math.floor(input.timestampMs / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
