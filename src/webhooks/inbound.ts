// The inbound-call webhook client (voice-agent-api.md "### Inbound webhook" rules 1-4, WIRE.md
// section 9). When a call reaches a number whose agent has an `inbound_call_webhook_url`, the
// receiver is asked which agent takes the call and with which variables and metadata.
//
// Timing: the whole exchange has a budget (`budgetMs`, 10 s) split into `maxAttempts` equal slots
// (4 × 2.5 s by default). Attempt n starts no earlier than the start of slot n, so an attempt that
// fails fast (connection refused, 500) waits for its next slot through `clock.sleep` instead of
// hammering the receiver, while an attempt that timed out is followed at once. Each attempt waits
// at most `timeoutMs` (PARLEY_INBOUND_WEBHOOK_TIMEOUT_MS, 2500 ms) and never past the end of the
// budget; an attempt that would start with no budget left is not made. The HTTP timeout is real
// time (an AbortSignal); slot waits and the budget use the injected clock.
//
// Signing: Standard Webhooks. `webhook-id` is the same on every attempt of one call;
// `webhook-timestamp` and `webhook-signature` are computed afresh per attempt (receivers reject
// stale timestamps). During a secret rotation the signature header carries both signatures,
// space separated.
//
// Nothing here logs; each attempt is handed to `onAttempt` for the caller to store as an
// `inbound_webhook` log row.

import { Webhook } from 'standardwebhooks';
import { OutboundHttpError, newId, toVariableMap } from '../core/index.ts';
import type { Clock, HttpPort, HttpResponse, VariableMap } from '../core/index.ts';
import { SIGNATURE_HEADERS } from './signing.ts';

export const DEFAULT_INBOUND_WEBHOOK_TIMEOUT_MS = 2500;
export const DEFAULT_INBOUND_WEBHOOK_BUDGET_MS = 10_000;
export const DEFAULT_INBOUND_WEBHOOK_MAX_ATTEMPTS = 4;

export interface InboundCallRequest {
  /** The agent's `inbound_call_webhook_url`. */
  url: string;
  /** The workspace webhook secret, `whsec_<base64>`. */
  secret: string;
  /** The secret before a rotation; when given, the request is signed with both. */
  previousSecret?: string;
  callId: string;
  fromNumber: string;
  toNumber: string;
  /** The number's preconfigured agent, sent as `model_id`. */
  modelId?: string;
  /** The `webhook-id`; a fresh UUID when omitted. The same on every attempt. */
  webhookId?: string;
}

/** One attempt, for the caller to store as an `inbound_webhook` log row. */
export interface InboundAttemptLog {
  call_id: string;
  webhook_id: string;
  /** 1-based. */
  attempt_number: number;
  url: string;
  request_headers: Record<string, string>;
  request_body: string;
  /** Null when no response arrived (timeout, connection error). */
  response_status_code: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  /** Measured on the injected clock. */
  duration_ms: number;
  /** Why the attempt failed; null on success. */
  error: string | null;
  status: 'success' | 'failed';
  /** Epoch ms (injected clock) when the attempt started. */
  started_at: number;
}

export interface InboundWebhookDeps {
  http: HttpPort;
  clock: Clock;
  /** Per-attempt wait for an answer; default 2500 ms. */
  timeoutMs?: number;
  /** All attempts together; default 10 000 ms. */
  budgetMs?: number;
  /** First attempt plus retries; default 4. */
  maxAttempts?: number;
  /** Called once, when the first attempt failed and another one follows: the call goes on hold. */
  onHold?: () => void;
  /** Called after every attempt. */
  onAttempt?: (log: InboundAttemptLog) => void;
  /** Aborting (the caller hung up) ends the exchange at once. */
  signal?: AbortSignal;
}

export type CustomVariables = VariableMap;

export type InboundDecision =
  | {
      /** Rule 2: connect the call. */
      action: 'connect';
      /** The agent to reroute to; null keeps the number's agent (`override_model_id` empty or absent). */
      modelId: string | null;
      customVariables: CustomVariables;
      metadata: Record<string, unknown>;
      attempts: number;
    }
  | {
      /** Rule 1: an empty `call_inbound` object, no agent assigned. */
      action: 'disconnect';
      reason: 'empty_answer';
      attempts: number;
    }
  | {
      /**
       * Rule 4: no usable answer; the caller reroutes to the `default_agent` or disconnects.
       * `aborted` when the signal ended the exchange (the caller hung up).
       */
      action: 'fallback';
      aborted?: true;
      attempts: number;
      /** The last attempt's failure, for the caller's records. */
      error?: string;
    };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The answer's `custom_variables`, as an object or the spec's `{key, value}` items: strings,
 * numbers and booleans as they are, nulls dropped, objects and arrays as their JSON text.
 * Anything else is ignored.
 */
export function normalizeCustomVariables(value: unknown): CustomVariables {
  return toVariableMap(value);
}

export type InboundAnswer =
  | { action: 'disconnect' }
  | {
      action: 'connect';
      modelId: string | null;
      customVariables: CustomVariables;
      metadata: Record<string, unknown>;
    }
  /** Not a usable answer; the attempt counts as failed. */
  | { action: 'invalid'; error: string };

/** Reads a 2xx body of the receiver (rules 1 and 2). */
export function interpretInboundAnswer(body: string): InboundAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { action: 'invalid', error: 'the answer is not JSON' };
  }
  if (!isPlainObject(parsed) || !isPlainObject(parsed.call_inbound)) {
    return { action: 'invalid', error: 'the answer has no call_inbound object' };
  }
  const answer = parsed.call_inbound;
  if (Object.keys(answer).length === 0) return { action: 'disconnect' };
  const override = answer.override_model_id;
  let modelId: string | null = null;
  if (typeof override === 'string') modelId = override.trim() === '' ? null : override.trim();
  else if (override !== undefined && override !== null) {
    return { action: 'invalid', error: 'override_model_id is not a string' };
  }
  return {
    action: 'connect',
    modelId,
    customVariables: normalizeCustomVariables(answer.custom_variables),
    metadata: isPlainObject(answer.metadata) ? answer.metadata : {},
  };
}

function describeError(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no answer within ${timeoutMs} ms`;
  if (err instanceof OutboundHttpError) return `${err.reason}: ${err.message}`;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Failures that another attempt cannot fix: the URL itself is unusable. */
function isPermanent(err: unknown): boolean {
  return err instanceof OutboundHttpError && (err.reason === 'bad_url' || err.reason === 'blocked_address');
}

function safeCall(fn: (() => void) | undefined): void {
  try {
    fn?.();
  } catch {
    // A failing callback must not change how the call is routed.
  }
}

/**
 * Asks the inbound webhook receiver how to route a call. Never throws: receiver failures,
 * network errors, an unusable secret and an aborted signal all end in a `fallback` decision.
 */
export async function routeInboundCall(
  request: InboundCallRequest,
  deps: InboundWebhookDeps,
): Promise<InboundDecision> {
  const { clock, signal } = deps;
  const timeoutMs = Math.max(1, deps.timeoutMs ?? DEFAULT_INBOUND_WEBHOOK_TIMEOUT_MS);
  const budgetMs = Math.max(1, deps.budgetMs ?? DEFAULT_INBOUND_WEBHOOK_BUDGET_MS);
  const maxAttempts = Math.max(1, Math.floor(deps.maxAttempts ?? DEFAULT_INBOUND_WEBHOOK_MAX_ATTEMPTS));
  const slotMs = budgetMs / maxAttempts;
  const webhookId = request.webhookId ?? newId();

  const payload: Record<string, string> = {};
  if (request.modelId !== undefined && request.modelId !== '') payload.model_id = request.modelId;
  payload.from_number = request.fromNumber;
  payload.to_number = request.toNumber;
  const body = JSON.stringify({ event: 'call_inbound', call_inbound: payload });

  let signers: Webhook[];
  try {
    signers = [request.secret, ...(request.previousSecret ? [request.previousSecret] : [])].map(
      (s) => new Webhook(s),
    );
  } catch {
    return { action: 'fallback', attempts: 0, error: 'the webhook secret is not usable' };
  }

  const start = clock.now();
  const deadline = start + budgetMs;
  let attempts = 0;
  let lastError: string | undefined;
  let onHoldCalled = false;
  const aborted = (): InboundDecision => ({
    action: 'fallback',
    aborted: true,
    attempts,
    ...(lastError !== undefined ? { error: lastError } : {}),
  });

  for (let index = 0; index < maxAttempts; index++) {
    if (signal?.aborted) return aborted();
    if (index > 0) {
      const wait = start + index * slotMs - clock.now();
      if (wait > 0) {
        try {
          await clock.sleep(wait, signal);
        } catch {
          return aborted();
        }
      }
      if (signal?.aborted) return aborted();
    }
    const startedAt = clock.now();
    const remaining = deadline - startedAt;
    if (remaining <= 0) break;
    const attemptTimeoutMs = Math.min(timeoutMs, remaining);

    const timestamp = new Date(startedAt);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(startedAt / 1000)),
      'webhook-signature': signers.map((w) => w.sign(webhookId, timestamp, body)).join(' '),
    };
    attempts++;
    const timeout = AbortSignal.timeout(attemptTimeoutMs);
    let response: HttpResponse | undefined;
    let error: string | null = null;
    let permanent = false;
    let decision: InboundDecision | undefined;
    try {
      response = await deps.http({
        url: request.url,
        method: 'POST',
        headers,
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        keepAcrossOrigins: SIGNATURE_HEADERS,
      });
      if (response.status < 200 || response.status > 299) {
        error = `the receiver answered ${response.status}`;
      } else {
        const answer = interpretInboundAnswer(response.body);
        if (answer.action === 'invalid') error = answer.error;
        else if (answer.action === 'disconnect') {
          decision = { action: 'disconnect', reason: 'empty_answer', attempts };
        } else decision = { ...answer, attempts };
      }
    } catch (err) {
      if (signal?.aborted) error = 'aborted';
      else {
        error = describeError(err, timeout.aborted, attemptTimeoutMs);
        permanent = isPermanent(err);
      }
    }
    const log: InboundAttemptLog = {
      call_id: request.callId,
      webhook_id: webhookId,
      attempt_number: attempts,
      url: request.url,
      request_headers: headers,
      request_body: body,
      response_status_code: response?.status ?? null,
      response_headers: response?.headers ?? null,
      response_body: response?.body ?? null,
      duration_ms: Math.max(0, clock.now() - startedAt),
      error,
      status: decision ? 'success' : 'failed',
      started_at: startedAt,
    };
    safeCall(deps.onAttempt && (() => deps.onAttempt?.(log)));
    if (decision) return decision;
    lastError = error ?? 'failed';
    if (signal?.aborted) return aborted();
    if (permanent) break;
    const more = index + 1 < maxAttempts && clock.now() < deadline;
    if (more && !onHoldCalled) {
      onHoldCalled = true;
      safeCall(deps.onHold);
    }
  }
  return { action: 'fallback', attempts, ...(lastError !== undefined ? { error: lastError } : {}) };
}
