import { createServer, type AddressInfo } from 'node:net';
import type WebSocket from 'ws';

// Shared by the WebSocket media API tests (test/api/ws-media*.test.ts): what a client socket
// received, a free port for the real server, and a bounded wait for a condition.

export interface Received {
  texts: Record<string, unknown>[];
  binaries: Uint8Array[];
  closed: Promise<{ code: number; reason: string }>;
}

/** Collects what `socket` receives: text messages parsed as JSON, binary ones as bytes. */
export function receive(socket: WebSocket): Received {
  const texts: Record<string, unknown>[] = [];
  const binaries: Uint8Array[] = [];
  socket.on('message', (data, isBinary) => {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    if (isBinary) binaries.push(new Uint8Array(bytes));
    else texts.push(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return { texts, binaries, closed };
}

/** A port free now (the API must know its URL before it listens). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Waits until `check()` holds; throws naming `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
