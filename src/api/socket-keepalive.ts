import type { WebSocket } from 'ws';

// Media sockets (WS media test calls, Twilio's streams) dropped without a close (a network gone)
// would keep their calls up: each is pinged every `intervalMs`, and one that has not answered the
// last ping by the next is cut off, which ends its call.

export function keepSocketAlive(socket: WebSocket, intervalMs: number): void {
  let answered = true;
  socket.on('pong', () => (answered = true));
  const timer = setInterval(() => {
    if (!answered) return socket.terminate();
    answered = false;
    socket.ping();
  }, intervalMs);
  timer.unref();
  socket.once('close', () => clearInterval(timer));
}
