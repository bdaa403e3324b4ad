export { buildApi, type ApiDeps } from './server.ts';
export { SchemaCompiles } from './lazy-schemas.ts';
export { createMetricsRegistry } from './metrics.ts';
export { MISSING_AUTH, INVALID_KEY } from './auth.ts';
export { FALLBACK_LLM_FAILURE, WHATSAPP_WINDOW_MS } from '../chat/index.ts';
export type { RateLimitOptions } from './rate-limit.ts';
export { injectFetch } from './inject-fetch.ts';
export type { McpHttpHandler } from './mcp-route.ts';
