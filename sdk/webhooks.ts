import { Webhook, WebhookVerificationError } from 'standardwebhooks';

// Parley signs every webhook as Standard Webhooks does (`webhook-id`, `webhook-timestamp`,
// `webhook-signature`), with the workspace's secret (`GET /v2/webhook_secret`). Verify with the
// raw body as received: a body parsed and serialized again does not verify.

export { WebhookVerificationError };

export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers;

/**
 * The webhook's payload, parsed, when its signature verifies against `secret` and its timestamp is
 * within five minutes of now; otherwise a WebhookVerificationError.
 */
export function verifyWebhook(rawBody: string, headers: WebhookHeaders, secret: string): unknown {
  const flat: Record<string, string> = {};
  const get = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return Array.isArray(value) ? value.join(' ') : (value ?? undefined);
  };
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = get(name);
    if (value !== undefined && value !== null) flat[name] = value;
  }
  return new Webhook(secret).verify(rawBody, flat);
}
