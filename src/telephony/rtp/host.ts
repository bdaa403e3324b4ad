import { createSocket, type Socket } from 'node:dgram';
import { lookup, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { ringView } from '../pacing/index.ts';
import type { HostSettings } from './protocol.ts';
import { SendTimingRecorder } from './send-timing.ts';
import { RtpSession } from './session.ts';
import { endpointView } from './shared.ts';
import type { RtpRemote } from './types.ts';

// The sessions of one media thread (the media worker, or the main thread in `caller` mode): binds
// their ports, passes them the main thread's set-up, and runs their beats.

/** No free port in the range (or none the system would give). */
export class PortsExhaustedError extends Error {
  override name = 'PortsExhaustedError';
}

function bind(socket: Socket, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    socket.once('error', failed);
    socket.bind({ port, address, exclusive: true }, () => {
      socket.off('error', failed);
      resolve();
    });
  });
}

/**
 * The sockets' address lookup: an IP address (what we send to: the SDP's, or the source we latched
 * onto) is answered at once, so a packet leaves inside the socket's send() instead of on a later
 * tick after the whole beat's work (Node's default lookup answers even an IP address on the next
 * tick); a name is looked up as usual.
 */
export function addressLookup(
  hostname: string,
  options: LookupOneOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
): void {
  const family = isIP(hostname);
  if (family !== 0) callback(null, hostname, family);
  else lookup(hostname, options, callback);
}

export class MediaHost {
  readonly sessions = new Map<number, RtpSession>();
  /** Where the next port search starts: ports go round the range, so a freed one rests a while. */
  private cursor: number;
  private readonly timing: SendTimingRecorder;

  constructor(
    private readonly settings: HostSettings,
    private readonly now: () => number,
    /** The counters of how late packets and ticks are (send-timing.ts), shared with the main thread. */
    timing: SharedArrayBuffer,
  ) {
    this.cursor = settings.portMin;
    this.timing = new SendTimingRecorder(timing);
  }

  /** Binds a port for endpoint `id` (`port`, else the next free even one) and starts its session. */
  async open(
    id: number,
    endpoint: SharedArrayBuffer,
    ring: SharedArrayBuffer,
    port?: number,
  ): Promise<number> {
    const { bindAddress, portMin, portMax } = this.settings;
    const type = bindAddress.includes(':') ? 'udp6' : 'udp4';
    const first = portMin + (portMin % 2);
    const count = Math.max(0, Math.floor((portMax - first) / 2) + 1);
    const taken = new Set<number>();
    for (const session of this.sessions.values()) taken.add(session.port);
    const tries = port === undefined ? count : 1;
    for (let i = 0; i < tries; i += 1) {
      let candidate = port;
      if (candidate === undefined) {
        if (this.cursor < first || this.cursor > portMax) this.cursor = first;
        candidate = this.cursor;
        this.cursor += 2;
        if (taken.has(candidate)) continue;
      }
      const socket = createSocket({ type, lookup: addressLookup });
      try {
        await bind(socket, candidate, bindAddress);
      } catch (err) {
        socket.close();
        if (
          (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ||
          (err as NodeJS.ErrnoException).code === 'EACCES'
        )
          continue;
        throw err;
      }
      const settings = { timeoutMs: this.settings.timeoutMs, comfortSilence: this.settings.comfortSilence };
      const session = new RtpSession(
        id,
        socket,
        endpointView(endpoint),
        ringView(ring),
        settings,
        this.now,
        this.timing,
      );
      this.sessions.get(id)?.close();
      this.sessions.set(id, session);
      return candidate;
    }
    throw new PortsExhaustedError(
      port === undefined ? `no free RTP port in ${portMin}-${portMax}` : `RTP port ${port} is taken`,
    );
  }

  update(id: number, remote: RtpRemote): void {
    this.sessions.get(id)?.update(remote);
  }

  keys(id: number, requestId: number, digits: string): void {
    this.sessions.get(id)?.sendKeys(requestId, digits);
  }

  close(id: number): void {
    this.sessions.get(id)?.close();
    this.sessions.delete(id);
  }

  /** Every session whose beat this is (`phase` of `phases`; all of them with one phase). */
  beat(gridAt: number, phase = 0, phases = 1): void {
    this.timing.tick(this.now() - gridAt);
    for (const session of this.sessions.values()) {
      if (session.id % phases !== phase) continue;
      try {
        session.beat(gridAt);
      } catch {
        // One session's failure (a codec that broke) must not stop the others' beats.
      }
    }
  }

  closeAll(): void {
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
  }
}
