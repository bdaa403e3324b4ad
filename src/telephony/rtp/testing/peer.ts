import { createSocket, type Socket } from 'node:dgram';
import { buildRtp, parseRtp, type RtpPacket, type RtpPacketInit } from '../../../media/index.ts';
import type { RtpRemote } from '../types.ts';

// A tiny far end for RTP tests: a UDP socket on 127.0.0.1 that records every RTP packet it gets
// and sends what a test tells it to.

export interface ReceivedRtp extends RtpPacket {
  /** The source port (our endpoint's). */
  readonly fromPort: number;
}

export interface RtpPeer {
  readonly port: number;
  readonly packets: ReceivedRtp[];
  /** Sends raw bytes to `port` on 127.0.0.1. */
  send(bytes: Uint8Array, port: number): void;
  sendRtp(packet: RtpPacketInit, port: number): void;
  /** Resolves once `count` packets came (or rejects after `limitMs` of real time, a test failure). */
  waitFor(count: number, limitMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function createRtpPeer(): Promise<RtpPeer> {
  const socket: Socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const packets: ReceivedRtp[] = [];
  socket.on('message', (message: Buffer, rinfo) => {
    const parsed = parseRtp(new Uint8Array(message));
    if (parsed.ok) packets.push({ ...parsed.packet, fromPort: rinfo.port });
  });
  return {
    port: socket.address().port,
    packets,
    send(bytes, port) {
      socket.send(bytes, port, '127.0.0.1');
    },
    sendRtp(packet, port) {
      socket.send(buildRtp(packet), port, '127.0.0.1');
    },
    async waitFor(count, limitMs = 5_000) {
      const giveUp = Date.now() + limitMs;
      while (packets.length < count) {
        if (Date.now() > giveUp) throw new Error(`the peer got ${packets.length} packets, not ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** Lets pending socket events run (a datagram sent on loopback is readable by then). */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** Where our RTP goes to reach `peer`: PCMU with telephone-event 101, both ways, unless `over` says. */
export function remoteOf(peer: RtpPeer, over: Partial<RtpRemote> = {}): RtpRemote {
  return {
    address: '127.0.0.1',
    port: peer.port,
    codec: 'PCMU',
    payloadType: 0,
    telephoneEvent: 101,
    direction: 'sendrecv',
    ...over,
  };
}
