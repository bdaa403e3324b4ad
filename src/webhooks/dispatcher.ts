import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import {
  OutboundHttpError,
  type Clock,
  type HttpPort,
  type HttpResponse,
  type Logger,
} from '../core/index.ts';
import {
  MAX_LOG_BODY_BYTES,
  type AttemptOutcome,
  type ClaimedWebhookDelivery,
  type RecordedAttempt,
  type Store,
  type WebhookStatus,
} from '../store/index.ts';
import { SIGNATURE_HEADERS, signWebhook } from './signing.ts';

// Delivers the webhook outbox (WIRE.md section 9). The delivery row is the truth: a worker claims
// due rows for a lease (src/store/webhooks.ts), makes one signed POST per row, then records the
// attempt and the row's next state in one transaction. A crash between claim and record leaves a
// leased row that is claimed again when the lease ends: at least once.
//
// - 2xx: success. 410: failed at once (the receiver is gone). 413: failed at once (the receiver
//   refuses the body's size; the same bytes would be refused again). A refused address or a bad
//   URL: failed at once. Anything else (another status, no answer within the attempt timeout, a
//   refused or closed connection): retried after RETRY_DELAYS_MS[attempt - 1]; after the last
//   delay's attempt the row is failed.
// - At most `concurrency` attempts run at once and each is bounded by the attempt timeout and the
//   response-size cap, so a hanging or flooding receiver holds one slot, never the others.
// - Time (due times, backoff, the attempt timeout, polling) goes through the injected Clock.

/** Waits before attempts 2..9: about 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h. */
export const RETRY_DELAYS_MS: readonly number[] = [
  10_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  24 * 3_600_000,
];
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000;
export const DEFAULT_WEBHOOK_CONCURRENCY = 32;
export const DEFAULT_WEBHOOK_POLL_INTERVAL_MS = 1_000;

export interface WebhookDispatcherOptions {
  /** Only `webhooks` is used. */
  store: Pick<Store, 'webhooks'>;
  clock: Clock;
  logger: Logger;
  /**
   * Outbound HTTP: the composition root's choice, core's safe fetch (private addresses refused
   * unless allowed) with `webhookFetchLimits`.
   */
  http: HttpPort;
  /** Attempts in flight at once (default 32). */
  concurrency?: number;
  /** Longest wait between looks at the outbox when nothing wakes the dispatcher (default 1 s). */
  pollIntervalMs?: number;
  /** No answer within this is a failed attempt (default 10 s). */
  attemptTimeoutMs?: number;
  /** How long a claim holds a row (default attempt timeout + 50 s). */
  leaseMs?: number;
  /** Waits before retries; the attempts are this list's length + 1 (default RETRY_DELAYS_MS). */
  retryDelaysMs?: readonly number[];
  /** How long stop() lets in-flight attempts finish before aborting them (default attempt timeout). */
  stopGraceMs?: number;
}

export interface WebhookDispatcher {
  /** Starts the delivery loop; aborting `signal` is the same as stop(). */
  start(signal?: AbortSignal): void;
  /** Looks at the outbox now (call after committing an enqueue). */
  wake(): void;
  /** Resolves once nothing due is left and nothing is in flight (tests, shutdown). */
  drain(): Promise<void>;
  /** Stops claiming; lets in-flight attempts finish (bounded by stopGraceMs), then aborts them. */
  stop(): Promise<void>;
  /** Attempts in flight now. */
  readonly inFlight: number;
}

interface IdleWaiter {
  /** The loop iteration running when drain() was called; a later idle iteration resolves it. */
  after: number;
  resolve: () => void;
}

/**
 * The limits of the fetch a dispatcher is given: the answer kept up to what the log keeps, and a
 * timeout just past the attempt's (the dispatcher's clock decides; the fetch's own real-time
 * timeout is only a backstop).
 */
export function webhookFetchLimits(attemptTimeoutMs = WEBHOOK_ATTEMPT_TIMEOUT_MS): {
  timeoutMs: number;
  maxBytes: number;
} {
  return { timeoutMs: attemptTimeoutMs + 1_000, maxBytes: MAX_LOG_BODY_BYTES };
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid-url';
  }
};

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { clock, logger } = options;
  const repo = options.store.webhooks;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY);
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_WEBHOOK_POLL_INTERVAL_MS;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? attemptTimeoutMs + 50_000;
  const retryDelays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const maxAttempts = retryDelays.length + 1;
  const stopGraceMs = options.stopGraceMs ?? attemptTimeoutMs;
  const claimAt = Math.max(1, Math.floor(concurrency / 4));
  const { http } = options;

  const inFlight = new Set<Promise<void>>();
  let abortAll = new AbortController();
  let running = false;
  let stopping = false;
  let loopDone: Promise<void> = Promise.resolve();
  let stopped: Promise<void> | null = null;
  let iteration = 0;
  let wakePending = false;
  let wakeWaiter: (() => void) | null = null;
  let idleWaiters: IdleWaiter[] = [];

  function wake(): void {
    wakePending = true;
    const w = wakeWaiter;
    wakeWaiter = null;
    w?.();
  }

  function resolveIdle(current: number): void {
    if (idleWaiters.length === 0) return;
    const keep: IdleWaiter[] = [];
    for (const w of idleWaiters) {
      if (w.after < current) w.resolve();
      else keep.push(w);
    }
    idleWaiters = keep;
  }

  /** Waits for a wake, a free slot, or the next due time (at most the poll interval). */
  async function waitForWork(): Promise<void> {
    if (wakePending || stopping) return;
    let delay = pollIntervalMs;
    if (inFlight.size > 0 && concurrency - inFlight.size < claimAt) {
      delay = Number.POSITIVE_INFINITY; // a finishing attempt wakes the loop
    } else {
      try {
        const next = await repo.nextDueAt();
        if (next !== null) delay = Math.min(delay, Math.max(next - clock.now(), 0));
      } catch {
        // the next claim reports store trouble
      }
      // Due rows this worker did not get are being claimed by another worker: look again soon.
      if (delay === 0) delay = Math.min(pollIntervalMs, 100);
    }
    await sleepOrWake(delay);
  }

  /** Sleeps `ms` of clock time (forever: Infinity), cut short by wake() or stop(). */
  async function sleepOrWake(ms: number): Promise<void> {
    if (wakePending || stopping) return;
    const delay = ms;
    const sleeping = new AbortController();
    const woken = new Promise<void>((resolve) => {
      wakeWaiter = resolve;
    });
    const timer = Number.isFinite(delay)
      ? clock.sleep(delay, sleeping.signal).catch(() => undefined)
      : new Promise<void>(() => undefined);
    await Promise.race([woken, timer]);
    sleeping.abort();
    wakeWaiter = null;
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      const current = ++iteration;
      wakePending = false;
      let claimed = 0;
      try {
        const free = concurrency - inFlight.size;
        // Claims are batched: with attempts in flight, wait until a quarter of the slots are free.
        if (free >= claimAt || (free > 0 && inFlight.size === 0)) {
          const batch = await repo.claimDue(free, leaseMs);
          claimed = batch.length;
          for (const delivery of batch) launch(delivery);
        }
      } catch (err) {
        logger.error({ err }, 'webhook outbox claim failed');
        await sleepOrWake(pollIntervalMs);
        continue;
      }
      if (claimed === 0 && inFlight.size === 0) resolveIdle(current);
      if (claimed > 0 && concurrency - inFlight.size >= claimAt) continue;
      await waitForWork();
    }
    for (const w of idleWaiters) w.resolve();
    idleWaiters = [];
  }

  // Group commit: attempts finishing while a write is in progress are recorded together in the
  // next transaction (one transaction per attempt would cap throughput at the store's commit rate).
  const recordQueue: { attempt: RecordedAttempt; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let flushing = false;

  function record(attempt: RecordedAttempt): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      recordQueue.push({ attempt, resolve, reject });
      // After the current I/O phase, so that attempts answered together are written together.
      if (!flushing && recordQueue.length === 1) setImmediate(() => void flush());
    });
  }

  async function flush(): Promise<void> {
    if (flushing) return;
    flushing = true;
    while (recordQueue.length > 0) {
      const batch = recordQueue.splice(0, 500);
      try {
        const held = await repo.recordAttempts(batch.map((b) => b.attempt));
        batch.forEach((b, i) => {
          if (held[i] === false) {
            logger.warn(
              { deliveryId: b.attempt.delivery.id },
              'webhook lease lost before the attempt was recorded',
            );
          }
          b.resolve();
        });
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    flushing = false;
  }

  function launch(delivery: ClaimedWebhookDelivery): void {
    const task: Promise<void> = attempt(delivery)
      .catch((err: unknown) => {
        // The lease ends and another claim retries it.
        logger.error({ err, deliveryId: delivery.id }, 'webhook attempt could not be recorded');
      })
      .finally(() => {
        inFlight.delete(task);
        wake();
      });
    inFlight.add(task);
  }

  function retryOrFail(
    delivery: ClaimedWebhookDelivery,
    statusCode: number | null,
    error: string,
  ): AttemptOutcome {
    if (delivery.attemptNumber >= maxAttempts) {
      return {
        status: 'failed',
        statusCode,
        error: `${error}; gave up after ${delivery.attemptNumber} attempts`,
      };
    }
    const delay = retryDelays[delivery.attemptNumber - 1] ?? retryDelays[retryDelays.length - 1] ?? 0;
    return { status: 'pending', nextAttemptAt: clock.now() + delay, statusCode, error };
  }

  function outcomeOf(delivery: ClaimedWebhookDelivery, res: HttpResponse): AttemptOutcome {
    const code = res.status;
    if (code >= 200 && code < 300) return { status: 'success', statusCode: code };
    if (code === 410) {
      return { status: 'failed', statusCode: code, error: 'the receiver answered 410 Gone: no more retries' };
    }
    if (code === 413) {
      return {
        status: 'failed',
        statusCode: code,
        error: 'the receiver answered 413: the payload is larger than it accepts; not retried',
      };
    }
    return retryOrFail(delivery, code, `the receiver answered ${code}`);
  }

  async function attempt(delivery: ClaimedWebhookDelivery): Promise<void> {
    const log = {
      workspaceId: delivery.workspaceId,
      webhookType: delivery.type,
      callId: delivery.callId,
      assistantId: delivery.assistantId,
      url: delivery.url,
      requestBody: delivery.body,
      attemptNumber: delivery.attemptNumber,
    };
    if (!delivery.workspaceActive || delivery.secrets.length === 0) {
      await record({
        delivery,
        log: {
          ...log,
          status: 'failed',
          requestHeaders: {},
          durationMs: 0,
          error: 'the workspace no longer exists',
        },
        outcome: { status: 'failed', error: 'the workspace no longer exists' },
      });
      return;
    }

    const headers = signWebhook({
      id: delivery.id,
      timestampMs: clock.now(),
      body: delivery.body,
      secrets: delivery.secrets,
    });
    const request = new AbortController();
    const timer = new AbortController();
    let timedOut = false;
    void clock.sleep(attemptTimeoutMs, timer.signal).then(
      () => {
        timedOut = true;
        request.abort();
      },
      () => undefined,
    );
    const onStop = () => request.abort();
    abortAll.signal.addEventListener('abort', onStop, { once: true });

    const started = performance.now();
    let response: HttpResponse | null = null;
    let outcome: AttemptOutcome;
    try {
      response = await http({
        url: delivery.url,
        method: 'POST',
        headers,
        body: delivery.body,
        signal: request.signal,
        maxBytes: MAX_LOG_BODY_BYTES,
        keepAcrossOrigins: SIGNATURE_HEADERS,
      });
      outcome = outcomeOf(delivery, response);
    } catch (err) {
      if (timedOut) {
        outcome = retryOrFail(delivery, null, `no answer within ${attemptTimeoutMs} ms`);
      } else if (abortAll.signal.aborted) {
        // Shutdown: try again at once, in whichever process runs next.
        outcome = { status: 'pending', nextAttemptAt: clock.now(), error: 'aborted at shutdown' };
      } else if (err instanceof OutboundHttpError && !err.retryable) {
        outcome = { status: 'failed', error: err.message };
      } else {
        outcome = retryOrFail(delivery, null, err instanceof Error ? err.message : String(err));
      }
    } finally {
      timer.abort();
      abortAll.signal.removeEventListener('abort', onStop);
    }
    const durationMs = performance.now() - started;

    const status: WebhookStatus = outcome.status;
    await record({
      delivery,
      log: {
        ...log,
        status,
        requestHeaders: headers,
        responseStatusCode: response?.status ?? null,
        responseHeaders: response?.headers ?? null,
        responseBody: response ? response.body : null,
        durationMs,
        error:
          outcome.error ?? (response?.truncated ? `response body cut at ${MAX_LOG_BODY_BYTES} bytes` : null),
      },
      outcome,
    });
    const fields = {
      deliveryId: delivery.id,
      workspaceId: delivery.workspaceId,
      host: hostOf(delivery.url),
      attempt: delivery.attemptNumber,
      statusCode: response?.status,
      outcome: status,
    };
    if (status === 'success') logger.debug(fields, 'webhook delivered');
    else if (status === 'pending') logger.info(fields, 'webhook attempt failed; will retry');
    else logger.warn(fields, 'webhook delivery failed');
  }

  const dispatcher: WebhookDispatcher = {
    start(signal) {
      if (running) return;
      running = true;
      stopping = false;
      abortAll = new AbortController();
      setMaxListeners(0, abortAll.signal); // one listener per attempt in flight
      loopDone = loop();
      signal?.addEventListener('abort', () => void dispatcher.stop(), { once: true });
    },
    wake,
    drain() {
      if (!running || stopping) return Promise.resolve();
      return new Promise<void>((resolve) => {
        idleWaiters.push({ after: iteration, resolve });
        wake();
      });
    },
    stop() {
      if (!running) return Promise.resolve();
      // Concurrent calls (the start signal's abort and an explicit stop) share one shutdown.
      stopped ??= (async () => {
        stopping = true;
        wake();
        await loopDone;
        if (inFlight.size > 0) {
          const grace = new AbortController();
          await Promise.race([
            Promise.allSettled([...inFlight]),
            clock.sleep(stopGraceMs, grace.signal).catch(() => undefined),
          ]);
          grace.abort();
          abortAll.abort();
          await Promise.allSettled([...inFlight]);
        }
        running = false;
        stopped = null;
      })();
      return stopped;
    },
    get inFlight() {
      return inFlight.size;
    },
  };
  return dispatcher;
}
