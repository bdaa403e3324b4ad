// The WebSocket media carrier `ws` (WIRE.md section 10).
export {
  WS_BIND_TIMEOUT_MS,
  WS_SESSION_TTL_MS,
  createWsMediaCarrier,
  type WsMediaCarrier,
  type WsMediaCarrierOptions,
  type WsMediaHandedOver,
  type WsMediaSessionDirectory,
  type WsMediaSessionInit,
} from './carrier.ts';
export { WS_CODECS, WS_CODEC_INFO, WS_FRAMINGS, type WsCodec, type WsFraming } from './edge.ts';
export type { WsMediaLeg } from './leg.ts';
export { WS_CLOSE, type WsMediaSocket } from './socket.ts';
