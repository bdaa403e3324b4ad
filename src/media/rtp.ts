// RTP packets (RFC 3550 section 5.1): the fixed 12-byte header, up to 15 CSRCs, an optional header
// extension and optional padding around the payload. Parsing never throws: packets come from the
// network, so anything malformed is an error result the caller counts and drops. Building checks
// its fields and throws, since a bad field there is our own bug.

export interface RtpHeaderExtension {
  /** The 16-bit profile-defined value (0xBEDE for RFC 8285 one-byte extensions). */
  readonly profile: number;
  /** The extension body, a multiple of 4 bytes. */
  readonly data: Uint8Array;
}

export interface RtpPacket {
  readonly payloadType: number;
  readonly marker: boolean;
  readonly sequence: number;
  readonly timestamp: number;
  readonly ssrc: number;
  readonly csrcs: readonly number[];
  readonly extension: RtpHeaderExtension | null;
  /** The payload without padding; a view into the parsed bytes, not a copy. */
  readonly payload: Uint8Array;
}

export interface RtpPacketInit {
  payloadType: number;
  marker?: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
  csrcs?: readonly number[];
  extension?: RtpHeaderExtension | null;
  payload: Uint8Array;
  /** Padding bytes to append (1-255), e.g. to reach a cipher's block size. */
  padding?: number;
}

export type RtpParseError =
  /** Shorter than the fixed header. */
  | 'too_short'
  /** The version field is not 2. */
  | 'bad_version'
  /** The CSRC count runs past the end. */
  | 'bad_csrc_count'
  /** The header extension's length runs past the end. */
  | 'bad_extension'
  /** The padding count is 0 or runs into the header. */
  | 'bad_padding';

export type RtpParseResult = { ok: true; packet: RtpPacket } | { ok: false; error: RtpParseError };

const HEADER = 12;
const NO_CSRCS: readonly number[] = Object.freeze([]);

const fail = (error: RtpParseError): RtpParseResult => ({ ok: false, error });

function writeU16(b: Uint8Array, at: number, value: number): void {
  b[at] = value >>> 8;
  b[at + 1] = value;
}

function writeU32(b: Uint8Array, at: number, value: number): void {
  b[at] = value >>> 24;
  b[at + 1] = value >>> 16;
  b[at + 2] = value >>> 8;
  b[at + 3] = value;
}

const readU16 = (b: Uint8Array, at: number): number => (b[at]! << 8) | b[at + 1]!;
const readU32 = (b: Uint8Array, at: number): number =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

export function parseRtp(data: Uint8Array): RtpParseResult {
  if (data.length < HEADER) return fail('too_short');
  const first = data[0]!;
  if (first >> 6 !== 2) return fail('bad_version');
  const csrcCount = first & 0x0f;
  let offset = HEADER + csrcCount * 4;
  if (offset > data.length) return fail('bad_csrc_count');
  let csrcs = NO_CSRCS;
  if (csrcCount > 0) {
    const list: number[] = [];
    for (let i = 0; i < csrcCount; i += 1) list.push(readU32(data, HEADER + i * 4));
    csrcs = list;
  }
  let extension: RtpHeaderExtension | null = null;
  if (first & 0x10) {
    if (offset + 4 > data.length) return fail('bad_extension');
    const profile = readU16(data, offset);
    const length = readU16(data, offset + 2) * 4;
    if (offset + 4 + length > data.length) return fail('bad_extension');
    extension = { profile, data: data.subarray(offset + 4, offset + 4 + length) };
    offset += 4 + length;
  }
  let end = data.length;
  if (first & 0x20) {
    const padding = data[data.length - 1]!;
    if (padding === 0 || padding > data.length - offset) return fail('bad_padding');
    end -= padding;
  }
  return {
    ok: true,
    packet: {
      payloadType: data[1]! & 0x7f,
      marker: (data[1]! & 0x80) !== 0,
      sequence: readU16(data, 2),
      timestamp: readU32(data, 4),
      ssrc: readU32(data, 8),
      csrcs,
      extension,
      payload: data.subarray(offset, end),
    },
  };
}

function checkField(name: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new RangeError(`RTP ${name} out of range: ${value}`);
}

/** Bytes `writeRtp` writes for `packet`. */
export function rtpLength(packet: RtpPacketInit): number {
  const csrcs = packet.csrcs?.length ?? 0;
  const extension = packet.extension ? 4 + packet.extension.data.length : 0;
  return HEADER + csrcs * 4 + extension + packet.payload.length + (packet.padding ?? 0);
}

/** Writes `packet` at the start of `out`; returns the bytes written. */
export function writeRtp(packet: RtpPacketInit, out: Uint8Array): number {
  const csrcs = packet.csrcs ?? NO_CSRCS;
  const padding = packet.padding ?? 0;
  const extension = packet.extension ?? null;
  checkField('payload type', packet.payloadType, 0x7f);
  checkField('sequence number', packet.sequence, 0xffff);
  checkField('timestamp', packet.timestamp, 0xffffffff);
  checkField('SSRC', packet.ssrc, 0xffffffff);
  checkField('CSRC count', csrcs.length, 15);
  checkField('padding', padding, 0xff);
  for (const csrc of csrcs) checkField('CSRC', csrc, 0xffffffff);
  if (extension) {
    checkField('extension profile', extension.profile, 0xffff);
    if (extension.data.length % 4 !== 0 || extension.data.length > 0xffff * 4) {
      throw new RangeError('RTP extension data must be a multiple of 4 bytes, at most 262140');
    }
  }
  const length = rtpLength(packet);
  if (out.length < length) throw new RangeError(`output holds ${out.length} bytes, ${length} needed`);

  out[0] = 0x80 | (padding > 0 ? 0x20 : 0) | (extension ? 0x10 : 0) | csrcs.length;
  out[1] = (packet.marker ? 0x80 : 0) | packet.payloadType;
  writeU16(out, 2, packet.sequence);
  writeU32(out, 4, packet.timestamp);
  writeU32(out, 8, packet.ssrc);
  let offset = HEADER;
  for (const csrc of csrcs) {
    writeU32(out, offset, csrc);
    offset += 4;
  }
  if (extension) {
    writeU16(out, offset, extension.profile);
    writeU16(out, offset + 2, extension.data.length / 4);
    out.set(extension.data, offset + 4);
    offset += 4 + extension.data.length;
  }
  out.set(packet.payload, offset);
  offset += packet.payload.length;
  if (padding > 0) {
    out.fill(0, offset, offset + padding - 1);
    out[offset + padding - 1] = padding;
    offset += padding;
  }
  return offset;
}

/** `packet` as a new byte array. */
export function buildRtp(packet: RtpPacketInit): Uint8Array {
  const out = new Uint8Array(rtpLength(packet));
  writeRtp(packet, out);
  return out;
}
