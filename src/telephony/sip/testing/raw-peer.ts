import { createSocket, type Socket } from 'node:dgram';
import { parseSipMessage, type SipMessage } from '../message.ts';

// A bare UDP SIP peer for tests: sends exactly the bytes it is given (malformed ones too) and keeps
// every message it receives, parsed, in order.

export interface RawSipPeer {
  readonly port: number;
  readonly received: SipMessage[];
  /** Raw datagrams that did not parse. */
  readonly unparsed: Buffer[];
  send(text: string | Buffer, port: number, address?: string): void;
  /** Resolves once `predicate` holds for what was received (checked as each message comes). */
  until(predicate: (received: SipMessage[]) => boolean, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function openRawSipPeer(): Promise<RawSipPeer> {
  const socket: Socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const received: SipMessage[] = [];
  const unparsed: Buffer[] = [];
  const waiters = new Set<() => void>();
  socket.on('message', (bytes) => {
    const parsed = parseSipMessage(bytes);
    if (parsed.ok) received.push(parsed.message);
    else unparsed.push(bytes);
    for (const wake of [...waiters]) wake();
  });
  return {
    port: socket.address().port,
    received,
    unparsed,
    send(text, port, address = '127.0.0.1') {
      socket.send(typeof text === 'string' ? Buffer.from(text) : text, port, address);
    },
    until(predicate, what = 'a condition') {
      if (predicate(received)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        // A generous bound so a broken test fails with a message instead of hanging.
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what}; got ${received.map(describe).join(', ')}`));
        }, 10_000);
        const check = () => {
          if (!predicate(received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

export function describe(message: SipMessage): string {
  return message.kind === 'request' ? message.method : String(message.status);
}

/** A request as text, CRLF line ends, with a Content-Length from the body unless given. */
export function sipText(lines: string[], body = '', contentLength?: number): string {
  return [...lines, `Content-Length: ${contentLength ?? Buffer.byteLength(body)}`, '', body].join('\r\n');
}
