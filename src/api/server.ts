import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { createAgentServices } from '../agents/index.ts';
import { systemClock, type Clock, type Logger } from '../core/index.ts';
import type { ModelRouter } from '../providers/index.ts';
import type { ConversationServices } from '../runtime/index.ts';
import type { RecordingStorage, Store } from '../store/index.ts';
import type { SpeechRegistry } from '../speech/index.ts';
import type { SimCarrier, TwilioCarrier, WsMediaCarrier } from '../telephony/index.ts';
import { createWorkspaceServices } from '../workspace/index.ts';
import type { CallService, WebCalls } from '../calls/index.ts';
import type { Chats } from '../chat/index.ts';
import { createSimulationLibrary, type SimulationService } from '../simulation/index.ts';
import { simulationRunRoutes } from './simulations/run-routes.ts';
import { actionRoutes } from './actions/routes.ts';
import { assistantRoutes } from './assistants/routes.ts';
import { versionRoutes } from './assistants/version-routes.ts';
import { authenticate, createAuthenticator } from './auth.ts';
import { mcpRoutes, type McpHttpHandler } from './mcp-route.ts';
import { consoleRoutes } from './console-route.ts';
import { chatRoutes } from './chats/routes.ts';
import { registerErrorHandling } from './errors.ts';
import { registerHealth } from './health.ts';
import { createMetricsRegistry, registerMetrics } from './metrics.ts';
import { knowledgeRoutes } from './knowledge/routes.ts';
import { callRoutes } from './calls/routes.ts';
import { wsMediaRoutes } from './calls/ws-media-routes.ts';
import { WS_MEDIA_MAX_MESSAGE_BYTES, wsMediaSocketRoute } from './calls/ws-media-socket.ts';
import { callRecordingRoutes } from './calls/recording-routes.ts';
import { batchRoutes } from './batches/routes.ts';
import { simulationRoutes } from './simulations/routes.ts';
import { calendarRoutes } from './calendar/routes.ts';
import { logRoutes } from './logs/routes.ts';
import { contactRoutes } from './contacts/routes.ts';
import { analyticsRoutes } from './analytics/routes.ts';
import { voiceRoutes } from './voices/routes.ts';
import { messagingRoutes } from './messaging/routes.ts';
import { numberRoutes } from './numbers/routes.ts';
import { registerOpenApi } from './openapi.ts';
import { DEFAULT_PUBLIC_RATE_LIMIT, createRateLimiter, type RateLimitOptions } from './rate-limit.ts';
import { subaccountRoutes } from './subaccounts/routes.ts';
import { twilioAccountRoutes } from './twilio/account-routes.ts';
import { speechProviderRoutes } from './speech/routes.ts';
import { twilioWebhookRoutes } from './twilio/webhook-routes.ts';
import { SchemaCompiles, serializerFactory } from './lazy-schemas.ts';
import { validatorCompiler } from './validation.ts';
import { workspaceRoutes } from './workspace/routes.ts';

export interface ApiDeps {
  store: Store;
  logger: Logger;
  publicUrl: string;
  bodyLimitBytes: number;
  metrics?: Registry;
  clock?: Clock;
  /** How long an authenticated key is remembered (0: never); see auth.ts. */
  authCacheTtlMs?: number;
  /** The built console to serve at `/` (console/dist); absent: none. */
  consoleDir?: string;
  /** Answers POST /v2/mcp (the MCP server's HTTP transport); absent: no such route. */
  mcp?: McpHttpHandler;
  /**
   * Compile every route's schemas at start (a test proves they compile). Default: on each route's
   * first use, and the rest in the background once the server listens.
   */
  eagerSchemas?: boolean;
  /** Where the lazy schemas wait for use or warm-up (default: the API's own); tests watch it. */
  schemaCompiles?: SchemaCompiles;
  /** Which model generates simulation cases (conversations get theirs from `services`). */
  models: ModelRouter;
  /** Requests per client address on the keyless (public widget) chat routes; default 20/minute. */
  publicRateLimit?: RateLimitOptions;
  /** Client addresses from X-Forwarded-For (set only behind a trusted reverse proxy). */
  trustProxy?: boolean;
  /** Knowledge fetches and custom actions may call private addresses (PARLEY_ALLOW_PRIVATE_NETWORK). */
  allowPrivateNetwork?: boolean;
  /**
   * The conversation services shared with calls (runtime, safe fetch, messaging hub, replies).
   * Built by the composition root (src/app.ts): the API chooses no implementation itself.
   */
  services: ConversationServices;
  /** Chats over the API, SMS and WhatsApp (src/chat), built by the composition root. */
  chats: Chats;
  /** Calls (POST /calls, GET /calls, the sim's inbound calls); absent: those routes are not served. */
  calls?: CallService;
  /** The sim carrier: `POST /sim/inbound` has it ring one of the workspace's numbers. */
  sim?: Pick<SimCarrier, 'ring'>;
  /** The WebSocket media test call's start routes; null or absent: they answer 503. */
  webCalls?: WebCalls | null;
  /** This node's WS media carrier, when it runs those calls: the socket route is served. */
  wsMedia?: WsMediaCarrier | null;
  /** This node's Twilio carrier, when it runs calls: Twilio's webhooks and stream are served. */
  twilio?: TwilioCarrier | null;
  /** The server has a default Twilio account (PARLEY_TWILIO_*), for GET /v2/twilio/account. */
  twilioServerAccount?: boolean;
  /** The speech providers (GET/PUT /v2/speech/providers, voices of hosted vendors); absent: not served. */
  speechRegistry?: SpeechRegistry;
  /** How often a WS media client is pinged; one that misses a pong is cut off (default 15 s). */
  wsMediaKeepAliveMs?: number;
  /** Call recordings (GET /calls/{id}/recording, DELETE /calls/{id}); absent: not served. */
  recordings?: RecordingStorage;
  /** Suite execution (POST /simulation_suites/{id}/execute and the results); absent: not served. */
  simulations?: SimulationService;
  /** The campaign dialer, woken when a batch may have something to dial. */
  dialer?: { wake(): void };
  /** false: only health, readiness and metrics (a `--role worker` node). Default true. */
  apiRoutes?: boolean;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** POST /v2/calls/batch takes up to 10,000 recipients per request: 32 MiB at least. */
const BATCH_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** Builds the HTTP application (not listening); tests drive it with `inject()`. */
export async function buildApi(deps: ApiDeps): Promise<FastifyInstance> {
  const compiles = deps.eagerSchemas ? null : (deps.schemaCompiles ?? new SchemaCompiles());
  const app = Fastify({
    trustProxy: deps.trustProxy ?? false,
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Requests are logged once, on completion, by route template: raw URLs can carry phone numbers.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true },
    schemaController: {
      compilersFactory: { buildSerializer: serializerFactory(compiles) },
    },
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler(compiles));
  if (compiles) warmWhenListening(app, compiles);
  // JSON in (WIRE.md section 1): Fastify's built-in text/plain parser would hand a string to the
  // body schema ("body must be object") instead of the content-type 400.
  app.removeContentTypeParser('text/plain');
  // An empty body is no body (item 1 of docs/api-notes.md "Compatibility"): many HTTP clients send
  // `content-type: application/json` on every request of a session, DELETEs and body-less POSTs
  // included. A route that needs a body then answers its schema's 400 naming `body`.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
  const clock = deps.clock ?? systemClock;
  registerErrorHandling(app, clock);

  app.decorateRequest('workspace', null as never);
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
  });

  registerMetrics(app, deps.metrics ?? createMetricsRegistry());
  registerHealth(app, deps.store);
  await registerOpenApi(app, deps.publicUrl);

  if (deps.wsMedia || deps.twilio)
    await app.register(websocket, { options: { maxPayload: WS_MEDIA_MAX_MESSAGE_BYTES } });
  if (deps.twilio) await app.register(twilioWebhookRoutes, { carrier: deps.twilio });
  if (deps.wsMedia) {
    await app.register(wsMediaSocketRoute, {
      prefix: '/v2',
      carrier: deps.wsMedia,
      ...(deps.wsMediaKeepAliveMs ? { keepAliveMs: deps.wsMediaKeepAliveMs } : {}),
    });
  }
  if (deps.apiRoutes === false) return app;
  if (deps.consoleDir) await app.register(consoleRoutes, { dir: deps.consoleDir });
  await app.register(
    async (v2) => {
      const auth = createAuthenticator(deps.store, clock, deps.authCacheTtlMs);
      const publicLimiter = createRateLimiter(deps.publicRateLimit ?? DEFAULT_PUBLIC_RATE_LIMIT, clock);
      v2.addHook('onRequest', authenticate(auth, { onPublic: (request) => publicLimiter.take(request.ip) }));
      const services = deps.services;
      // The rules of changes, over the store (docs/architecture.md, "Where the rules of a change live").
      const { agents, numbers, actions } = createAgentServices(deps.store);
      const { settings, subaccounts } = createWorkspaceServices(deps.store);
      const library = createSimulationLibrary(deps.store);
      await v2.register(assistantRoutes, {
        store: deps.store,
        agents,
        ...(deps.speechRegistry ? { speech: deps.speechRegistry } : {}),
      });
      await v2.register(versionRoutes, { store: deps.store });
      await v2.register(numberRoutes, { store: deps.store, numbers });
      await v2.register(actionRoutes, { store: deps.store, actions, agents, http: services.http });
      await v2.register(calendarRoutes, { store: deps.store, clock });
      await v2.register(batchRoutes, {
        store: deps.store,
        batchBodyLimitBytes: Math.max(deps.bodyLimitBytes, BATCH_BODY_LIMIT_BYTES),
        ...(deps.dialer ? { dialer: deps.dialer } : {}),
      });
      await v2.register(simulationRoutes, { store: deps.store, library });
      if (deps.simulations)
        await v2.register(simulationRunRoutes, {
          store: deps.store,
          simulations: deps.simulations,
          models: deps.models,
        });
      if (deps.calls)
        await v2.register(callRoutes, {
          store: deps.store,
          calls: deps.calls,
          ...(deps.sim ? { sim: deps.sim } : {}),
        });
      await v2.register(wsMediaRoutes, { store: deps.store, webCalls: deps.webCalls ?? null });
      if (deps.recordings)
        await v2.register(callRecordingRoutes, { store: deps.store, recordings: deps.recordings });
      await v2.register(knowledgeRoutes, {
        store: deps.store,
        agents,
        allowPrivateNetwork: deps.allowPrivateNetwork ?? false,
      });
      await v2.register(subaccountRoutes, { store: deps.store, subaccounts, auth });
      await v2.register(twilioAccountRoutes, {
        store: deps.store,
        serverAccount: deps.twilioServerAccount ?? false,
      });
      if (deps.speechRegistry)
        await v2.register(speechProviderRoutes, { store: deps.store, speech: deps.speechRegistry });
      await v2.register(workspaceRoutes, { store: deps.store, settings, auth });
      await v2.register(logRoutes, { store: deps.store });
      await v2.register(contactRoutes, { store: deps.store });
      await v2.register(analyticsRoutes, { store: deps.store, clock });
      await v2.register(voiceRoutes, {
        ...(deps.speechRegistry ? { speech: deps.speechRegistry } : {}),
        ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
      });
      await v2.register(chatRoutes, { store: deps.store, chats: deps.chats });
      if (deps.mcp) await v2.register(mcpRoutes, { handle: deps.mcp });
      await v2.register(messagingRoutes, { store: deps.store, chats: deps.chats, publicUrl: deps.publicUrl });
    },
    { prefix: '/v2' },
  );

  return app;
}

/** Once `app` listens, compiles the schemas no request has compiled yet; stops when it closes. */
function warmWhenListening(app: FastifyInstance, compiles: SchemaCompiles): void {
  const closing = new AbortController();
  app.addHook('onListen', async () => {
    void compiles.warm(closing.signal, (err) =>
      app.log.error({ err, event: 'schema_compile_failed' }, 'a route schema does not compile'),
    );
  });
  app.addHook('onClose', async () => closing.abort());
}
