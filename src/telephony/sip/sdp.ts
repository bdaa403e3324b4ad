import { parse, write, type SessionDescription } from 'sdp-transform';

// SDP offer/answer (RFC 3264) for one audio stream: PCMU and PCMA at 8 kHz, 20 ms packets, and
// telephone-event/8000 for keys (RFC 4733). The far end's description is read with sdp-transform;
// what we send is written with it too.

export type SdpCodecName = 'PCMU' | 'PCMA';
export type MediaDirection = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

/** What was agreed for the call's audio, from our side. */
export interface NegotiatedMedia {
  address: string;
  port: number;
  codec: SdpCodecName;
  payloadType: number;
  /** The far end's telephone-event payload type, null when it offers none. */
  telephoneEvent: number | null;
  /** Our direction: sendonly/inactive from the far end (hold) makes ours recvonly/inactive. */
  direction: MediaDirection;
}

export interface LocalMedia {
  /** The address written in c= (PARLEY_SIP_PUBLIC_ADDRESS). */
  address: string;
  port: number;
  /** o= session id and version (a re-offer or re-answer increments the version). */
  sessionId: number;
  version: number;
}

const STATIC: Readonly<Record<number, SdpCodecName>> = { 0: 'PCMU', 8: 'PCMA' };
const PAYLOAD: Readonly<Record<SdpCodecName, number>> = { PCMU: 0, PCMA: 8 };
/** What we offer, in order of preference. */
const OFFERED: readonly SdpCodecName[] = ['PCMU', 'PCMA'];
export const TELEPHONE_EVENT_PT = 101;

const REVERSE: Readonly<Record<MediaDirection, MediaDirection>> = {
  sendrecv: 'sendrecv',
  sendonly: 'recvonly',
  recvonly: 'sendonly',
  inactive: 'inactive',
};

function describe(
  local: LocalMedia,
  codecs: { pt: number; name: string; rate: number; fmtp?: string }[],
  direction: MediaDirection,
): string {
  const description: SessionDescription = {
    version: 0,
    origin: {
      username: 'parley',
      sessionId: local.sessionId,
      sessionVersion: local.version,
      netType: 'IN',
      ipVer: local.address.includes(':') ? 6 : 4,
      address: local.address,
    },
    name: 'Parley',
    connection: { version: local.address.includes(':') ? 6 : 4, ip: local.address },
    timing: { start: 0, stop: 0 },
    media: [
      {
        type: 'audio',
        port: local.port,
        protocol: 'RTP/AVP',
        payloads: codecs.map((c) => c.pt).join(' '),
        rtp: codecs.map((c) => ({ payload: c.pt, codec: c.name, rate: c.rate })),
        fmtp: codecs.filter((c) => c.fmtp).map((c) => ({ payload: c.pt, config: c.fmtp ?? '' })),
        ptime: 20,
        direction,
      },
    ],
  };
  return write(description);
}

/** Our offer (an outbound INVITE, or a re-INVITE of ours). */
export function createOffer(local: LocalMedia, direction: MediaDirection = 'sendrecv'): string {
  return describe(
    local,
    [
      ...OFFERED.map((name) => ({ pt: PAYLOAD[name], name, rate: 8000 })),
      { pt: TELEPHONE_EVENT_PT, name: 'telephone-event', rate: 8000, fmtp: '0-16' },
    ],
    direction,
  );
}

export type SdpError = { error: string };

interface AudioOffer {
  address: string;
  port: number;
  codecs: { pt: number; name: string; rate: number }[];
  direction: MediaDirection;
}

function readAudio(text: string): AudioOffer | SdpError {
  let session: SessionDescription;
  try {
    session = parse(text);
  } catch {
    return { error: 'unreadable SDP' };
  }
  const audio = session.media?.find((m) => m.type === 'audio' && m.port !== 0);
  if (!audio) return { error: 'no audio stream' };
  if (!/^RTP\/AVP$/i.test(audio.protocol)) return { error: `unsupported media protocol ${audio.protocol}` };
  const address = audio.connection?.ip ?? session.connection?.ip;
  if (!address) return { error: 'no connection address' };
  if (!Number.isInteger(audio.port) || audio.port < 1 || audio.port > 65_535)
    return { error: 'bad media port' };
  const payloads = String(audio.payloads ?? '')
    .split(/\s+/)
    .filter((p) => /^\d{1,3}$/.test(p))
    .map(Number);
  const rtpmap = new Map((audio.rtp ?? []).map((r) => [r.payload, r]));
  const codecs = payloads.map((pt) => {
    const mapped = rtpmap.get(pt);
    return { pt, name: mapped?.codec ?? STATIC[pt] ?? '', rate: mapped?.rate ?? 8000 };
  });
  const raw = audio.direction ?? session.direction ?? 'sendrecv';
  // c=0.0.0.0 is the old way of putting a call on hold (RFC 2543).
  const direction: MediaDirection = address === '0.0.0.0' ? 'inactive' : raw;
  return { address, port: audio.port, codecs, direction };
}

function choose(offer: AudioOffer, order: readonly SdpCodecName[]): NegotiatedMedia | SdpError {
  const codec = offer.codecs.find(
    (c) => order.some((name) => c.name.toUpperCase() === name) && c.rate === 8000,
  );
  if (!codec) return { error: 'no common codec (we take PCMU or PCMA)' };
  const event = offer.codecs.find((c) => c.name.toLowerCase() === 'telephone-event' && c.rate === 8000);
  return {
    address: offer.address,
    port: offer.port,
    codec: codec.name.toUpperCase() as SdpCodecName,
    payloadType: codec.pt,
    telephoneEvent: event?.pt ?? null,
    direction: REVERSE[offer.direction],
  };
}

/** Answers the far end's offer: what was agreed and our answer, or why not (488). */
export function answerOffer(
  offer: string,
  local: LocalMedia,
): { media: NegotiatedMedia; answer: string } | SdpError {
  const read = readAudio(offer);
  if ('error' in read) return read;
  // Their order decides among what we take (RFC 3264 section 6.1 lets the answerer pick).
  const theirs = read.codecs.map((c) => c.name.toUpperCase()).filter((n): n is SdpCodecName => n in PAYLOAD);
  const media = choose(read, theirs);
  if ('error' in media) return media;
  const codecs: { pt: number; name: string; rate: number; fmtp?: string }[] = [
    { pt: media.payloadType, name: media.codec, rate: 8000 },
  ];
  if (media.telephoneEvent !== null) {
    codecs.push({ pt: media.telephoneEvent, name: 'telephone-event', rate: 8000, fmtp: '0-16' });
  }
  return { media, answer: describe(local, codecs, media.direction) };
}

/** Reads the far end's answer to our offer. */
export function readAnswer(answer: string): NegotiatedMedia | SdpError {
  const read = readAudio(answer);
  if ('error' in read) return read;
  return choose(read, OFFERED);
}
