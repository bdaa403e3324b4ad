export * from './inbound.ts';
export {
  DEFAULT_WEBHOOK_CONCURRENCY,
  DEFAULT_WEBHOOK_POLL_INTERVAL_MS,
  RETRY_DELAYS_MS,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  createWebhookDispatcher,
  webhookFetchLimits,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './dispatcher.ts';
export { WEBHOOK_USER_AGENT, signWebhook, type SignWebhookInput } from './signing.ts';
export {
  WEBHOOK_STATUSES,
  WEBHOOK_TYPES,
  type NewWebhookDelivery,
  type WebhookDelivery,
  type WebhookLog,
  type WebhookStatus,
  type WebhookType,
} from '../store/index.ts';
