import type { Worker } from 'node:worker_threads';
import { ParleyError, spawnSiblingWorker, systemClock } from '../../core/index.ts';
import { createFrameTicker, type FrameTick } from '../pacing/index.ts';
import { Endpoint, type EndpointLink } from './endpoint.ts';
import { MediaHost, PortsExhaustedError } from './host.ts';
import type { FromMediaWorker, HostSettings, ToMediaWorker } from './protocol.ts';
import { readSendTiming, sendTimingBuffer } from './send-timing.ts';
import type { RtpEndpoint, RtpMedia, RtpMediaOptions, RtpRemote } from './types.ts';

// One node's RTP media (docs/sip.md, "Media (RTP)"): the endpoints of its calls, and the thread
// that runs their media. By default a media worker owns the sockets, jitter buffers and codecs; the
// main thread only hands frames over on its beat (endpoint.ts). A worker that dies is replaced and
// its endpoints reopened on the same ports (the shared memory keeps each stream's SSRC, sequence
// number and timestamp, and the queued audio); one that keeps dying is given up and the media runs
// on the main thread (`caller`), as it does on purpose in tests on a manual clock.

export const RTP_TIMEOUT_MS = 30_000;
/** Worker restarts tried before the media moves to the main thread. */
const MAX_RESTARTS = 3;

/** The thread that runs the media, as RtpMedia drives it. */
interface MediaLink extends EndpointLink {
  readonly thread: 'worker' | 'caller';
  open(endpoint: Endpoint, port?: number): Promise<number>;
  shutdown(): Promise<void>;
}

function exhausted(message: string): ParleyError {
  return new ParleyError(message, {
    code: 'rtp_ports_exhausted',
    status: 503,
    category: 'critical',
    retryable: true,
  });
}

export interface RtpMediaTestOptions {
  /** Starts the media worker (tests inject one that dies). */
  spawn?: () => Worker;
}

export function createRtpMedia(options: RtpMediaOptions & RtpMediaTestOptions): RtpMedia {
  const { bindAddress, portMin, portMax, logger } = options;
  const clock = options.clock ?? systemClock;
  if (!Number.isInteger(portMin) || !Number.isInteger(portMax) || portMin < 1 || portMax > 65535)
    throw new RangeError(`RTP ports must be integers 1-65535, got ${portMin}-${portMax}`);
  if (portMin + (portMin % 2) > portMax) throw new RangeError(`no even port in ${portMin}-${portMax}`);
  const settings: HostSettings = {
    bindAddress,
    portMin,
    portMax,
    timeoutMs: options.rtpTimeoutMs ?? RTP_TIMEOUT_MS,
    comfortSilence: options.comfortSilence ?? true,
  };
  const spawn = options.spawn ?? (() => spawnSiblingWorker(import.meta.url, 'media-worker'));
  const ticker = createFrameTicker(clock);
  // One set of counters for the node's media, whichever thread runs it (a new worker carries on).
  const timing = sendTimingBuffer();
  const endpoints = new Map<number, Endpoint>();
  let nextId = 1;
  let restarts = 0;
  let closed = false;

  /** Caller mode: the media runs on this thread, on the beat before the endpoints hand frames over. */
  function callerLink(): MediaLink {
    const host = new MediaHost(settings, () => clock.now(), timing);
    const beat: FrameTick = { send: (at) => host.beat(at), deliver: () => {} };
    let beating = false;
    return {
      thread: 'caller',
      async open(endpoint, port) {
        const bound = await host.open(endpoint.id, endpoint.shared, endpoint.ring.buffer, port);
        if (!beating) {
          beating = true;
          // Before the endpoints' own ticks: the ticker runs every send before any deliver.
          ticker.add(beat);
        }
        return bound;
      },
      update: (id, remote) => host.update(id, remote),
      keys: (id, requestId, digits) => host.keys(id, requestId, digits),
      close(id) {
        host.close(id);
        if (host.sessions.size === 0 && beating) {
          beating = false;
          ticker.delete(beat);
        }
      },
      async shutdown() {
        host.closeAll();
        ticker.delete(beat);
      },
    };
  }

  function workerLink(): MediaLink {
    const worker = spawn();
    worker.unref();
    const opening = new Map<number, { resolve: (port: number) => void; reject: (err: Error) => void }>();
    let gone = false;
    const post = (message: ToMediaWorker) => {
      if (!gone) worker.postMessage(message);
    };
    worker.on('error', (err) => logger?.error({ err }, 'RTP media worker failed'));
    worker.on('message', (message: FromMediaWorker) => {
      if (message.kind === 'priority') {
        if (message.raised) logger?.debug('RTP media thread runs at a raised priority');
        else
          logger?.warn(
            { reason: message.reason },
            'RTP media thread could not raise its priority: on a busy machine packets may leave late',
          );
        return;
      }
      const waiter = opening.get(message.id);
      if (!waiter) return;
      opening.delete(message.id);
      if (message.kind === 'opened') waiter.resolve(message.port);
      else waiter.reject(message.exhausted ? exhausted(message.message) : new Error(message.message));
    });
    worker.on('exit', (code) => {
      gone = true;
      for (const waiter of opening.values()) waiter.reject(exhausted('the RTP media worker stopped'));
      opening.clear();
      if (!closed && link === self) replace(code);
    });
    post({ kind: 'init', settings, timing });
    const self: MediaLink = {
      thread: 'worker',
      open(endpoint, port) {
        if (gone) return Promise.reject(exhausted('the RTP media worker stopped'));
        return new Promise<number>((resolve, reject) => {
          opening.set(endpoint.id, { resolve, reject });
          post({
            kind: 'open',
            id: endpoint.id,
            endpoint: endpoint.shared,
            ring: endpoint.ring.buffer,
            ...(port === undefined ? {} : { port }),
          });
        });
      },
      update: (id, remote) => post({ kind: 'update', id, remote }),
      keys: (id, requestId, digits) => post({ kind: 'keys', id, requestId, digits }),
      close: (id) => post({ kind: 'close', id }),
      async shutdown() {
        gone = true;
        await worker.terminate();
      },
    };
    return self;
  }

  /** The media thread died: a new one takes the endpoints over on their ports. */
  function replace(code: number): void {
    if (restarts < MAX_RESTARTS) {
      restarts += 1;
      logger?.warn({ code, restarts }, 'RTP media worker exited: restarting it');
      link = workerLink();
    } else {
      logger?.error({ code, restarts }, 'RTP media worker keeps exiting: media now runs on the main thread');
      link = callerLink();
    }
    const next = link;
    for (const endpoint of endpoints.values()) {
      endpoint.keysSent();
      next.open(endpoint, endpoint.port).then(
        () => {
          if (endpoint.remote && link === next) next.update(endpoint.id, endpoint.remote);
        },
        (err: unknown) => logger?.error({ err, port: endpoint.port }, 'RTP endpoint could not be reopened'),
      );
    }
  }

  let link: MediaLink = options.thread === 'caller' ? callerLink() : workerLink();
  // Endpoints reach whichever thread runs the media now.
  const current: () => EndpointLink = () => link;

  return {
    get inUse() {
      return endpoints.size;
    },
    get thread() {
      return link.thread;
    },
    sendTiming: () => readSendTiming(timing),
    async allocate(): Promise<RtpEndpoint> {
      if (closed) throw exhausted('RTP media is closed');
      const endpoint = new Endpoint(nextId++, current, (ended) => {
        endpoints.delete(ended.id);
        ticker.delete(ended.tick);
      });
      try {
        endpoint.port = await link.open(endpoint);
      } catch (err) {
        if (err instanceof PortsExhaustedError) throw exhausted(err.message);
        throw err;
      }
      if (closed) {
        link.close(endpoint.id);
        throw exhausted('RTP media is closed');
      }
      endpoints.set(endpoint.id, endpoint);
      ticker.add(endpoint.tick);
      return endpoint;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const endpoint of [...endpoints.values()]) endpoint.close();
      await link.shutdown();
    },
  };
}

export type { RtpRemote };
