import { ParleyError, unwrap, type Parley } from './client.ts';
import { hasWebCodecsAudio, webCodecsOpus } from './webcodecs-opus.ts';

// The WebSocket media test call (docs/ws-media.md, WIRE.md section 10) from a browser page or Node:
// `startWebCall` starts the call through the API, opens its socket (legacy flow: the URL's
// single-use session id binds it, the socket takes no API key) and resolves once the server says
// `call_info`. Then `send` takes the caller's 20 ms frames of 16-bit PCM at the call's rate,
// `onAudio` hands over the agent's, `onTranscript` each line as it is said, and `closed` says how
// the socket ended. Codecs: `l16` (16 kHz, the default: no codec needed in a page), `pcmu` and
// `pcma` (8 kHz), `opus` (48 kHz): this helper carries no Opus codec; a browser's WebCodecs one is
// used where there is one (webCodecsOpus), else pass `opus`. With `rtp` framing the timestamps
// count the frames sent: send steadily (silence too), as a microphone does.

export type WebCallCodec = 'l16' | 'pcmu' | 'pcma' | 'opus';

/**
 * An Opus encoder and decoder for one call (mono, 48 kHz, one 20 ms packet per frame). They may
 * answer at once or later (WebCodecs works off the thread), but in order, through the sinks the
 * call gives its factory.
 */
export interface WebCallOpus {
  /** Encodes one 20 ms frame (960 samples); its packet goes to `onPacket`. */
  encode(frame: Int16Array): void;
  /** Decodes one packet; its samples (any count, 20 ms a packet from Parley) go to `onPcm`. */
  decode(packet: Uint8Array): void;
  close(): void;
}

export interface WebCallOpusSinks {
  onPacket(packet: Uint8Array): void;
  onPcm(pcm: Int16Array): void;
  /** A packet that could not be encoded or decoded (counted in the stats as dropped). */
  onError(error: unknown): void;
}

export type WebCallOpusFactory = (sinks: WebCallOpusSinks) => WebCallOpus | Promise<WebCallOpus>;
export type WebCallFraming = 'payload' | 'rtp';

/** What this helper needs of a WebSocket: the browser's, or the `ws` package's class in Node. */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: Uint8Array | string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: (event: unknown) => void): void;
  addEventListener(type: 'error', listener: (event: unknown) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface WebCallLine {
  speaker: 'agent' | 'caller';
  text: string;
}

export interface WebCallOptions {
  /** The agent (UUID). */
  modelId: string;
  /** Default `l16` (16 kHz). */
  codec?: WebCallCodec;
  /** For `opus`: the codec (default webCodecsOpus, where the runtime has WebCodecs). */
  opus?: WebCallOpusFactory;
  /** Default `payload` (bare payloads: no RTP headers to write or read). */
  framing?: WebCallFraming;
  /** `draft`, `live` or a version UUID; default the live version. */
  agentVersion?: string;
  leadName?: string;
  /** The WebSocket class (default `globalThis.WebSocket`; in Node 20 pass `ws`'s). */
  WebSocket?: WebSocketConstructor;
  /**
   * The agent's audio, one 20 ms frame at the call's rate per call. The array is reused for the
   * next frame: copy what you keep.
   */
  onAudio?: (pcm: Int16Array) => void;
  /** Each transcript line as it is said (the agent's when it starts, the caller's once heard). */
  onTranscript?: (line: WebCallLine) => void;
  /** Hangs up (or stops the start) when aborted. */
  signal?: AbortSignal;
  /** How long to wait for the socket to open and the call to be bound (default 15 s). */
  connectTimeoutMs?: number;
}

export interface WebCallClose {
  /** The WebSocket close code (1000: a normal end; 4001-4008: refusals, docs/ws-media.md). */
  code: number;
  reason: string;
  /** The server's `error` message before it closed, if it sent one. */
  error: string | null;
  /** The reason of the server's `call_ended` (the call ended on its side), if it sent one. */
  ended: string | null;
  /** This side hung up (`hangUp`, or the signal). */
  hungUp: boolean;
}

export interface WebCallStats {
  framesSent: number;
  framesReceived: number;
  /** Binary messages that were not a frame of the call's codec and framing. */
  framesDropped: number;
}

export interface WebCall {
  readonly callId: string;
  readonly codec: WebCallCodec;
  readonly framing: WebCallFraming;
  /** The audio's rate both ways: 16000 for l16, 8000 for G.711, 48000 for Opus. */
  readonly sampleRate: number;
  /** Samples in a 20 ms frame: what `send` takes and `onAudio` gives. */
  readonly frameSamples: number;
  /**
   * Sends one 20 ms frame of the caller's audio (exactly `frameSamples` samples). False when the
   * socket is no longer open (the frame is dropped).
   */
  send(pcm: Int16Array): boolean;
  /** Ends the call (closes the socket with 1000). */
  hangUp(): void;
  /** Settles when the socket has closed; never rejects. */
  readonly closed: Promise<WebCallClose>;
  readonly stats: Readonly<WebCallStats>;
}

/** The socket closed (or could not open) before the call was bound. */
export class WebCallError extends Error {
  override name = 'WebCallError';
  constructor(
    message: string,
    /** The close code; undefined when the socket never closed (a timeout, an abort). */
    readonly code: number | undefined,
    /** The server's words (its `error` message or close reason), when it said any. */
    readonly description: string,
  ) {
    super(message);
  }
}

const FRAME_MS = 20;
const OPEN = 1;
const RTP_HEADER = 12;
/** `bytesPerSample` 0: a packet of any size (Opus). */
const CODECS: Record<WebCallCodec, { rate: number; payloadType: number; bytesPerSample: 0 | 1 | 2 }> = {
  l16: { rate: 16000, payloadType: 96, bytesPerSample: 2 },
  pcmu: { rate: 8000, payloadType: 0, bytesPerSample: 1 },
  pcma: { rate: 8000, payloadType: 8, bytesPerSample: 1 },
  opus: { rate: 48000, payloadType: 111, bytesPerSample: 0 },
};
/** The largest message the server takes (docs/ws-media.md). */
const MAX_MESSAGE_BYTES = 1_500;

/** What the close codes of docs/ws-media.md mean, for messages. */
export const WEB_CALL_CLOSE_CODES: Readonly<Record<number, string>> = {
  1000: 'the call ended',
  1006: 'the connection was lost',
  1009: 'a message was too large',
  4001: 'unknown or expired session',
  4002: 'the session was bound already',
  4003: 'audio before the bind',
  4008: 'no bind in time',
};

/** `4001 (unknown or expired session)`: a close code in words. */
export function describeClose(close: { code: number; reason: string; error?: string | null }): string {
  const words = close.error || close.reason || WEB_CALL_CLOSE_CODES[close.code] || '';
  return words ? `${close.code} (${words})` : String(close.code);
}

export async function startWebCall(parley: Parley, options: WebCallOptions): Promise<WebCall> {
  const codec = options.codec ?? 'l16';
  const framing = options.framing ?? 'payload';
  const Socket =
    options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ?? undefined;
  if (!Socket) throw new TypeError('startWebCall: no WebSocket here; pass options.WebSocket (Node: `ws`)');
  const { signal } = options;
  signal?.throwIfAborted();
  const opusFactory = codec === 'opus' ? (options.opus ?? defaultOpus()) : undefined;

  const info = CODECS[codec];
  const frameSamples = (info.rate * FRAME_MS) / 1000;
  const payloadBytes = frameSamples * info.bytesPerSample;
  const headerBytes = framing === 'rtp' ? RTP_HEADER : 0;
  const stats: WebCallStats = { framesSent: 0, framesReceived: 0, framesDropped: 0 };
  /** The agent's frame, decoded: reused for every frame. */
  const heard = new Int16Array(frameSamples);
  let heardAt = 0;
  const rtp = { sequence: randomBits(16), timestamp: randomBits(32), ssrc: randomBits(32), first: true };

  /** The call's socket once it started (the codec is made before it). */
  let live: WebSocketLike | null = null;
  /** One payload on the socket, behind its RTP header when framed so; `write` fills the payload. */
  const sendPayload = (bytes: number, write: (message: Uint8Array, at: number) => void) => {
    if (live?.readyState !== OPEN) return false;
    // A new message each time: `ws` masks the bytes in place and writes them later.
    const message = new Uint8Array(headerBytes + bytes);
    if (framing === 'rtp') {
      writeRtpHeader(message, info.payloadType, rtp.sequence, rtp.timestamp, rtp.ssrc, rtp.first);
      rtp.sequence = (rtp.sequence + 1) & 0xffff;
      rtp.timestamp = (rtp.timestamp + frameSamples) >>> 0;
      rtp.first = false;
    }
    write(message, headerBytes);
    live.send(message);
    stats.framesSent += 1;
    return true;
  };
  /** Decoded audio of any length, handed over in 20 ms frames. */
  const hear = (pcm: Int16Array) => {
    for (let at = 0; at < pcm.length;) {
      const n = Math.min(pcm.length - at, frameSamples - heardAt);
      heard.set(pcm.subarray(at, at + n), heardAt);
      heardAt += n;
      at += n;
      if (heardAt === frameSamples) {
        heardAt = 0;
        options.onAudio?.(heard);
      }
    }
  };
  // The codec before the call: one that cannot start starts no call.
  const opus = opusFactory
    ? await Promise.resolve(
        opusFactory({
          onPacket: (packet) => void sendPayload(packet.length, (m, at) => m.set(packet, at)),
          onPcm: hear,
          onError: () => (stats.framesDropped += 1),
        }),
      )
    : undefined;

  const started = await startCall(parley, {
    modelId: options.modelId,
    wsMediaCodec: codec,
    wsMediaFraming: framing,
    ...(options.agentVersion !== undefined ? { agentVersion: options.agentVersion } : {}),
    ...(options.leadName !== undefined ? { leadName: options.leadName } : {}),
  }).catch((err: unknown) => {
    opus?.close();
    throw err;
  });

  const socket = new Socket(started.wsMediaUrl);
  live = socket;
  socket.binaryType = 'arraybuffer';
  let serverError: string | null = null;
  let ended: string | null = null;
  let hungUp = false;
  let bound: ((callInfo: Record<string, unknown>) => void) | null = null;
  let settleClose: (close: WebCallClose) => void = () => {};
  const closed = new Promise<WebCallClose>((resolve) => (settleClose = resolve));

  // A socket still connecting closes once open: bound and closed, the call ends at once (closed
  // while connecting, it would wait for its client until the session expires).
  const hangUp = () => {
    hungUp = true;
    if (socket.readyState === OPEN) socket.close(1000, 'hang up');
  };
  socket.addEventListener('open', () => {
    if (hungUp) socket.close(1000, 'hang up');
  });

  socket.addEventListener('message', (event) => {
    const data = event.data;
    if (typeof data === 'string') {
      const message = parseJson(data);
      if (!message) return;
      if (message.type === 'call_info') bound?.(message);
      else if (message.type === 'transcript' && typeof message.text === 'string')
        options.onTranscript?.({ speaker: message.role === 'bot' ? 'agent' : 'caller', text: message.text });
      else if (message.type === 'call_ended')
        ended = typeof message.reason === 'string' ? message.reason : '';
      else if (message.type === 'error') serverError = typeof message.error === 'string' ? message.error : '';
      return;
    }
    if (!(data instanceof ArrayBuffer)) return;
    const bytes = new Uint8Array(data);
    const payload = framing === 'rtp' ? rtpPayload(bytes, info.payloadType) : 0;
    const size = bytes.length - payload;
    if (payload < 0 || (opus ? size < 1 || size > MAX_MESSAGE_BYTES : size !== payloadBytes)) {
      stats.framesDropped += 1;
      return;
    }
    stats.framesReceived += 1;
    if (opus) {
      opus.decode(bytes.subarray(payload));
      return;
    }
    decode(codec, bytes, payload, heard);
    options.onAudio?.(heard);
  });
  socket.addEventListener('close', (event) => {
    opus?.close();
    settleClose({ code: event.code, reason: event.reason, error: serverError, ended, hungUp });
  });
  socket.addEventListener('error', () => undefined);
  if (signal?.aborted) hangUp();
  else signal?.addEventListener('abort', hangUp, { once: true });

  // Bound: the server's `call_info`; else the socket's end, a timeout or the signal.
  const timeoutMs = options.connectTimeoutMs ?? 15_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      bound = (callInfo) => {
        if (callInfo.sampleRate !== info.rate || callInfo.codec !== codec || callInfo.framing !== framing) {
          hangUp();
          reject(
            new WebCallError(`the server bound another call: ${JSON.stringify(callInfo)}`, undefined, ''),
          );
        } else resolve();
      };
      void closed.then((close) =>
        reject(
          new WebCallError(
            `the call's socket closed before the call started: ${describeClose(close)}`,
            close.code,
            close.error || close.reason,
          ),
        ),
      );
      timer = setTimeout(() => {
        hangUp();
        reject(new WebCallError(`the call did not start within ${timeoutMs} ms`, undefined, ''));
      }, timeoutMs);
      if (signal?.aborted) reject(signal.reason);
      else signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  } catch (err) {
    hangUp();
    throw err;
  } finally {
    clearTimeout(timer);
    bound = null;
  }

  return {
    callId: started.callId,
    codec,
    framing,
    sampleRate: info.rate,
    frameSamples,
    stats,
    closed,
    hangUp,
    send(pcm) {
      if (pcm.length !== frameSamples)
        throw new RangeError(
          `send takes ${frameSamples} samples (20 ms at ${info.rate} Hz), got ${pcm.length}`,
        );
      if (socket.readyState !== OPEN) return false;
      if (opus) opus.encode(pcm);
      else sendPayload(payloadBytes, (message, at) => encode(codec, pcm, message, at));
      return true;
    },
  };
}

/** POST /v2/calls/outbound-test-ws-media: its bare answer, or a ParleyError in the API's words. */
async function startCall(
  parley: Parley,
  body: {
    modelId: string;
    wsMediaCodec: WebCallCodec;
    wsMediaFraming: WebCallFraming;
    agentVersion?: string;
    leadName?: string;
  },
): Promise<{ callId: string; wsMediaUrl: string }> {
  const path = '/v2/calls/outbound-test-ws-media';
  // No answer (refused, timed out): unwrap says so in its words.
  const post = () => parley.api.POST(path, { body });
  let answer: Awaited<ReturnType<typeof post>>;
  try {
    answer = await post();
  } catch (err) {
    await unwrap(Promise.reject(err));
    throw err;
  }
  const { data, error, response } = answer;
  if (response.ok && typeof data?.callId === 'string' && typeof data.wsMediaUrl === 'string') return data;
  // The 502 of a named node that cannot take the call: `{callId?, error}`, not the error envelope.
  const bare = typeof error === 'object' && error !== null && 'error' in error ? error.error : undefined;
  if (typeof bare === 'string')
    throw new ParleyError(`${path}: ${response.status} ${bare}`, response.status, bare);
  if (response.ok) {
    const what = 'the answer has no callId or wsMediaUrl';
    throw new ParleyError(`${path}: ${response.status} ${what}`, response.status, what);
  }
  // Any other refusal: the envelope's description (or a proxy's page), read by unwrap.
  await unwrap(Promise.resolve(answer));
  throw new ParleyError(`${path}: ${response.status}`, response.status, response.statusText);
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const randomBits = (bits: 16 | 32) => Math.floor(Math.random() * 2 ** bits);

function writeRtpHeader(
  out: Uint8Array,
  payloadType: number,
  sequence: number,
  timestamp: number,
  ssrc: number,
  marker: boolean,
): void {
  out[0] = 0x80;
  out[1] = (marker ? 0x80 : 0) | payloadType;
  out[2] = sequence >>> 8;
  out[3] = sequence & 0xff;
  out[4] = timestamp >>> 24;
  out[5] = (timestamp >>> 16) & 0xff;
  out[6] = (timestamp >>> 8) & 0xff;
  out[7] = timestamp & 0xff;
  out[8] = ssrc >>> 24;
  out[9] = (ssrc >>> 16) & 0xff;
  out[10] = (ssrc >>> 8) & 0xff;
  out[11] = ssrc & 0xff;
}

/** Where an RTP packet's payload starts (CSRCs, extension and padding read); -1 when it is not ours. */
function rtpPayload(packet: Uint8Array, payloadType: number): number {
  if (packet.length < RTP_HEADER) return -1;
  const first = packet[0]!;
  if (first >> 6 !== 2 || (packet[1]! & 0x7f) !== payloadType) return -1;
  let at = RTP_HEADER + (first & 0x0f) * 4;
  if (first & 0x10) {
    if (packet.length < at + 4) return -1;
    at += 4 + ((packet[at + 2]! << 8) | packet[at + 3]!) * 4;
  }
  // Padding (its count in the last byte) is not expected from Parley: a padded packet is refused
  // by the size check, as a wrong size.
  if (first & 0x20 || at > packet.length) return -1;
  return at;
}

/** Where the runtime has WebCodecs (browsers), its Opus; else the caller must pass one. */
function defaultOpus(): WebCallOpusFactory {
  if (!hasWebCodecsAudio())
    throw new TypeError('startWebCall: no Opus codec here (no WebCodecs); pass options.opus');
  return webCodecsOpus;
}

function decode(codec: WebCallCodec, bytes: Uint8Array, from: number, out: Int16Array): void {
  if (codec === 'l16') {
    for (let i = 0, b = from; i < out.length; i += 1, b += 2)
      out[i] = ((bytes[b]! << 24) >> 16) | bytes[b + 1]!;
    return;
  }
  const table = codec === 'pcmu' ? ULAW_DECODE : ALAW_DECODE;
  for (let i = 0; i < out.length; i += 1) out[i] = table[bytes[from + i]!]!;
}

function encode(codec: WebCallCodec, pcm: Int16Array, out: Uint8Array, from: number): void {
  if (codec === 'l16') {
    for (let i = 0, b = from; i < pcm.length; i += 1, b += 2) {
      const s = pcm[i]!;
      out[b] = (s >> 8) & 0xff;
      out[b + 1] = s & 0xff;
    }
    return;
  }
  const law = codec === 'pcmu' ? ulaw : alaw;
  for (let i = 0; i < pcm.length; i += 1) out[from + i] = law(pcm[i]!);
}

// ---- G.711 (ITU-T G.711) ----
// As the server's (src/media/g711.ts): each sample rounded to the nearest code step, as SoX does.

const ULAW_SEGMENT_ENDS = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff];
const ALAW_SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

function segmentOf(magnitude: number, ends: readonly number[]): number {
  let segment = 0;
  while (segment < 8 && magnitude > ends[segment]!) segment += 1;
  return segment;
}

/** The mu-law code of a 16-bit sample (rounded to 14 bits, G.711 table 2a). */
function ulaw(sample16: number): number {
  const sample = Math.min(8191, (sample16 + 2) >> 2);
  const mask = sample < 0 ? 0x7f : 0xff;
  const magnitude = Math.min(Math.abs(sample), 8159) + 33;
  const segment = segmentOf(magnitude, ULAW_SEGMENT_ENDS);
  if (segment >= 8) return 0x7f ^ mask;
  return ((segment << 4) | ((magnitude >> (segment + 1)) & 0x0f)) ^ mask;
}

/** The A-law code of a 16-bit sample (rounded to 13 bits, G.711 table 1a). */
function alaw(sample16: number): number {
  const sample = Math.min(4095, (sample16 + 4) >> 3);
  const mask = sample >= 0 ? 0xd5 : 0x55;
  const magnitude = sample >= 0 ? sample : -sample - 1;
  const segment = segmentOf(magnitude, ALAW_SEGMENT_ENDS);
  if (segment >= 8) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (magnitude >> 1) & 0x0f : (magnitude >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

const ULAW_DECODE = new Int16Array(256);
const ALAW_DECODE = new Int16Array(256);
for (let i = 0; i < 256; i += 1) {
  const u = ~i & 0xff;
  const t = (((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4);
  ULAW_DECODE[i] = u & 0x80 ? 0x84 - t : t - 0x84;
  const a = i ^ 0x55;
  const exponent = (a & 0x70) >> 4;
  let m = (a & 0x0f) << 4;
  m = exponent === 0 ? m + 8 : (m + 0x108) << (exponent - 1);
  ALAW_DECODE[i] = a & 0x80 ? m : -m;
}
