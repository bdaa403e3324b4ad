// What the WebSocket media carrier needs of a socket: the API adapts the server's WebSocket to
// this, so the carrier knows no web framework.

export interface WsMediaSocket {
  /** Sends a text (string) or binary (bytes) message; ignored once closed. */
  send(data: string | Uint8Array): void;
  /** Closes with a code and a short reason (WebSocket close frame). */
  close(code: number, reason: string): void;
  /** Each message the client sends: text as a string, binary as bytes. */
  onMessage(handler: (data: string | Uint8Array) => void): void;
  /** Once, when the socket is gone (closed by either side, or dropped). */
  onClose(handler: () => void): void;
}

/** Close codes the carrier uses (4000-4999 are the application's). */
export const WS_CLOSE = {
  /** The call ended. */
  normal: 1000,
  /** A message over the size limit. */
  tooBig: 1009,
  /** The server could not look the session up now (the store failed); the client may retry. */
  tryAgain: 1013,
  /** No such session, or it expired. */
  unknownSession: 4001,
  /** The session was already bound (session ids are single-use), or this socket is bound already. */
  alreadyBound: 4002,
  /** Audio before the bind. */
  notBound: 4003,
  /** Nothing bound the socket in time. */
  bindTimeout: 4008,
} as const;
