export * from './llm/types.ts';
export * from './speech/types.ts';
export { collectChat, type CollectedChat } from './llm/collect.ts';
export * from './messaging/types.ts';
export { createOpenAILLM, type OpenAILLMOptions } from './llm/openai.ts';
export { createSimMessaging, type SimMessaging, type SimSentMessage } from './messaging/sim.ts';
export { createTwilioMessaging, createTwilioInboundParser } from './messaging/twilio.ts';
export {
  createModelRouter,
  type ModelChoice,
  type ModelRouter,
  type ModelRouterOptions,
} from './llm/router.ts';
export { createBuiltinLLM } from './llm/builtin/index.ts';
export * from './calendar/types.ts';
export {
  CALCOM_BOOKINGS_API_VERSION,
  CALCOM_DEFAULT_BASE_URL,
  CALCOM_SLOTS_API_VERSION,
  CalcomError,
  createCalcomCalendar,
  type CalcomOptions,
} from './calendar/calcom.ts';
export {
  VOICES,
  VOICE_PROVIDERS,
  findVoices,
  voiceById,
  type Voice,
  type VoiceGender,
  type VoiceQuery,
} from './voices.ts';
