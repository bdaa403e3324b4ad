export {
  createSpeechRegistry,
  type CallSpeechRequest,
  type SpeechRegistry,
  type SpeechRegistryOptions,
} from './registry.ts';
export { speechQuality } from './report.ts';
export type {
  AgentSpeechFields,
  CallSpeechPlan,
  OfflineSpeech,
  ProviderStatus,
  SpeechReport,
  SpeechVendorFactories,
  VoiceChoice,
} from './types.ts';
export type { WorkspaceVendor } from './vendors.ts';
