// The Twilio carrier `twilio` (docs/twilio.md): REST calls, Media Streams, signed webhooks.
export {
  TWILIO_RING_TIMEOUT_S,
  TWILIO_ROUTE_PAUSE_S,
  TWILIO_ROUTE_WAIT_MS,
  TWILIO_STATUS_PATH,
  TWILIO_STREAM_PATH,
  TWILIO_STREAM_START_MS,
  TWILIO_VOICE_PATH,
  createTwilioCarrier,
  type TwilioAnswer,
  type TwilioCarrier,
  type TwilioCarrierOptions,
  type TwilioDirectory,
  type TwilioRequest,
  type TwilioSocket,
} from './carrier.ts';
export { MARK_EVERY_FRAMES } from './leg.ts';
export {
  TwilioRestError,
  createTwilioRest,
  type TwilioAccount,
  type TwilioRest,
  type TwilioRestOptions,
} from './rest.ts';
