import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { MAX_MESSAGE_BYTES } from './message.ts';

// Where SIP messages come in and go out (RFC 3261 section 18): one UDP socket and one TCP listener
// on the same port. Over TCP a message ends where its Content-Length says; a connection that sends
// a message too large or without a readable length is cut. Connections we open to a peer are kept
// and reused, as are those peers opened to us (responses go back the way requests came).

export type SipTransportName = 'udp' | 'tcp';

export interface SipPeer {
  transport: SipTransportName;
  address: string;
  port: number;
}

export interface SipTransportOptions {
  /** Address to listen on (PARLEY_SIP_LISTEN_ADDRESS). */
  address: string;
  /** Port for UDP and TCP; 0 picks a free one (the same for both when it can). */
  port: number;
  /** Which transports to open (default both). */
  transports?: readonly SipTransportName[];
  /** Idle TCP connections are closed after this long (default 5 min). */
  tcpIdleMs?: number;
}

export type SipReceived = (bytes: Buffer, from: SipPeer) => void;

export interface SipTransport {
  /** The bound port (UDP and TCP share it). */
  readonly port: number;
  readonly address: string;
  send(bytes: Buffer, to: SipPeer): void;
  onReceive(handler: SipReceived): void;
  close(): Promise<void>;
}

const key = (address: string, port: number) => `${address}|${port}`;
const TCP_IDLE_MS = 5 * 60_000;

/** Finds one whole message at the start of `buffer`: its length, 0 for not yet, -1 for never. */
function frameLength(buffer: Buffer): number {
  // Keep-alive CRLFs between messages (RFC 5626 section 3.5.1) are skipped by the caller.
  const end = buffer.indexOf('\r\n\r\n');
  if (end < 0) return buffer.length > MAX_MESSAGE_BYTES ? -1 : 0;
  const head = buffer.subarray(0, end).toString('latin1');
  const match = /\r\n(?:content-length|l)[ \t]*:[ \t]*(\d{1,6})[ \t]*(?:\r\n|$)/i.exec(head);
  if (!match) return -1; // TCP needs Content-Length (RFC 3261 section 18.3)
  const total = end + 4 + Number(match[1]);
  if (total > MAX_MESSAGE_BYTES) return -1;
  return buffer.length >= total ? total : 0;
}

export async function openSipTransport(options: SipTransportOptions): Promise<SipTransport> {
  const transports = options.transports ?? ['udp', 'tcp'];
  const idleMs = options.tcpIdleMs ?? TCP_IDLE_MS;
  let handler: SipReceived = () => {};
  const connections = new Map<string, Socket>();
  let udp: UdpSocket | null = null;
  let tcp: Server | null = null;
  let port = options.port;
  let closed = false;

  function adopt(socket: Socket, peer: SipPeer) {
    const id = key(peer.address, peer.port);
    connections.set(id, socket);
    socket.setNoDelay(true);
    socket.setTimeout(idleMs, () => socket.destroy());
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        let skip = 0;
        while (skip < pending.length && (pending[skip] === 0x0d || pending[skip] === 0x0a)) skip += 1;
        if (skip > 0) pending = pending.subarray(skip);
        if (pending.length === 0) return;
        const length = frameLength(pending);
        if (length < 0) {
          socket.destroy();
          return;
        }
        if (length === 0) return;
        const message = Buffer.from(pending.subarray(0, length));
        pending = pending.subarray(length);
        handler(message, peer);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      if (connections.get(id) === socket) connections.delete(id);
    });
  }

  if (transports.includes('tcp')) {
    tcp = createServer((socket) => {
      const address = socket.remoteAddress;
      const remotePort = socket.remotePort;
      if (!address || !remotePort) {
        socket.destroy();
        return;
      }
      adopt(socket, { transport: 'tcp', address: address.replace(/^::ffff:/, ''), port: remotePort });
    });
    const server = tcp;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, options.address, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const bound = server.address();
    if (bound && typeof bound === 'object') port = bound.port;
  }
  if (transports.includes('udp')) {
    const socket = createSocket({ type: options.address.includes(':') ? 'udp6' : 'udp4' });
    udp = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, options.address, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    port = socket.address().port;
    socket.on('message', (bytes, rinfo) =>
      handler(bytes, { transport: 'udp', address: rinfo.address, port: rinfo.port }),
    );
    socket.on('error', () => undefined); // ICMP errors of earlier sends; each send reports its own
  }

  return {
    port,
    address: options.address,
    onReceive(next) {
      handler = next;
    },
    send(bytes, to) {
      if (closed) return;
      if (to.transport === 'udp') {
        udp?.send(bytes, to.port, to.address, () => undefined);
        return;
      }
      const id = key(to.address, to.port);
      let socket = connections.get(id);
      if (!socket || socket.destroyed) {
        socket = createConnection({ host: to.address, port: to.port });
        adopt(socket, to);
      }
      socket.write(bytes);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const socket of connections.values()) socket.destroy();
      connections.clear();
      await Promise.all([
        udp ? new Promise<void>((resolve) => udp?.close(() => resolve())) : undefined,
        tcp ? new Promise<void>((resolve) => tcp?.close(() => resolve())) : undefined,
      ]);
    },
  };
}
