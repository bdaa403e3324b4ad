import {
  SPEECH_VENDORS,
  STT_VENDORS,
  TTS_VENDORS,
  type SpeechConfig,
  type SpeechVendor,
  type SttVendor,
  type TtsVendor,
  type VendorSettings,
} from '../core/index.ts';

// Which vendor settings a workspace's calls use: its own where it has them, the server's
// otherwise; and the order calls try them: the workspace's own vendors first, then the server's
// order (docs/speech-providers.md).

export interface EffectiveVendor {
  vendor: SpeechVendor;
  source: 'workspace' | 'server';
  settings: VendorSettings;
  /** Names this exact configuration (adapters are built once per key). */
  key: string;
}

export interface WorkspaceVendor {
  vendor: SpeechVendor;
  settings: VendorSettings;
  updatedAt: number;
}

export interface VendorOrder {
  vendors: Map<SpeechVendor, EffectiveVendor>;
  stt: SttVendor[];
  tts: TtsVendor[];
}

export function vendorOrder(
  config: SpeechConfig,
  workspaceId: string,
  own: readonly WorkspaceVendor[],
): VendorOrder {
  const vendors = new Map<SpeechVendor, EffectiveVendor>();
  for (const record of own)
    vendors.set(record.vendor, {
      vendor: record.vendor,
      source: 'workspace',
      settings: record.settings,
      key: `workspace:${workspaceId}:${record.vendor}:${record.updatedAt}`,
    });
  for (const vendor of SPEECH_VENDORS) {
    const settings = config.vendors[vendor];
    if (settings && !vendors.has(vendor))
      vendors.set(vendor, { vendor, source: 'server', settings, key: `server:${vendor}` });
  }
  const ownFirst = <T extends SpeechVendor>(known: readonly T[], serverOrder: readonly T[]): T[] => [
    ...new Set([...known.filter((v) => own.some((r) => r.vendor === v)), ...serverOrder]),
  ];
  return { vendors, stt: ownFirst(STT_VENDORS, config.stt), tts: ownFirst(TTS_VENDORS, config.tts) };
}
