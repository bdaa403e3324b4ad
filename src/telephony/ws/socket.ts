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
  /**
   * The plain TCP socket underneath, for a pacer thread to write the call's audio to directly
   * (docs/ws-media.md); null when there is none to write to (TLS, or not a TCP socket).
   */
  direct?(): DirectSocket | null;
  /**
   * With `direct`: each audio frame the pacer wrote to the socket itself, with its grid time and
   * when it left, seen on the call's next beat (a measuring hook: the bench's).
   */
  frameLeft?(gridAt: number, sentAt: number): void;
}

/** A socket whose descriptor another thread writes whole WebSocket frames to. */
export interface DirectSocket {
  /** The TCP socket's file descriptor. */
  readonly fd: number;
  /**
   * Calls `closing` before the descriptor can close (every way the socket closes, and the
   * WebSocket's close frame, after which no data frame may follow), and brackets each of the
   * socket's own writes with `writing` ('held': then `written` once that write is all out; 'go':
   * write unheld; 'wait': the other thread owes the rest of a frame, try again shortly).
   */
  guard(hooks: { closing(): void; writing(): 'held' | 'go' | 'wait'; written(): void }): void;
  /** Cuts the connection at once, without a close frame (its byte stream is corrupt). */
  terminate(): void;
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
