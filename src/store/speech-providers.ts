import type { Clock, SpeechVendor, VendorSettings } from '../core/index.ts';
import { SPEECH_VENDORS } from '../core/index.ts';
import type { Db } from './database.ts';
import { bumpAgentsVersion } from './workspaces.ts';

// Workspaces' own hosted speech vendors (migration 025): settings by vendor, the key as given.

export interface SpeechProviderRecord {
  workspaceId: string;
  vendor: SpeechVendor;
  settings: VendorSettings;
  updatedAt: number;
}

interface Row {
  workspace_id: string;
  vendor: string;
  api_key: string;
  base_url: string | null;
  stt_model: string | null;
  tts_model: string | null;
  voice: string | null;
  updated_at: number;
}

function toRecord(row: Row): SpeechProviderRecord | null {
  const vendor = SPEECH_VENDORS.find((v) => v === row.vendor);
  if (!vendor) return null;
  const settings: VendorSettings = { apiKey: row.api_key };
  if (row.base_url) settings.baseUrl = row.base_url;
  if (row.stt_model) settings.sttModel = row.stt_model;
  if (row.tts_model) settings.ttsModel = row.tts_model;
  if (row.voice) settings.voice = row.voice;
  return { workspaceId: row.workspace_id, vendor, settings, updatedAt: Number(row.updated_at) };
}

export function speechProvidersRepo(db: Db, clock: Clock) {
  return {
    /** The workspace's own vendors, in the order of SPEECH_VENDORS. */
    async list(workspaceId: string): Promise<SpeechProviderRecord[]> {
      const rows = await db
        .selectFrom('speech_providers')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      const records = rows.map(toRecord).filter((r): r is SpeechProviderRecord => r !== null);
      return SPEECH_VENDORS.flatMap((v) => records.filter((r) => r.vendor === v));
    },
    /** Sets (or replaces) the workspace's settings for `vendor`. */
    async set(
      workspaceId: string,
      vendor: SpeechVendor,
      settings: VendorSettings,
    ): Promise<SpeechProviderRecord> {
      const now = clock.now();
      const values = {
        api_key: settings.apiKey,
        base_url: settings.baseUrl ?? null,
        stt_model: settings.sttModel ?? null,
        tts_model: settings.ttsModel ?? null,
        voice: settings.voice ?? null,
        updated_at: now,
      };
      await db
        .insertInto('speech_providers')
        .values({ workspace_id: workspaceId, vendor, ...values, created_at: now })
        .onConflict((oc) => oc.columns(['workspace_id', 'vendor']).doUpdateSet(values))
        .execute();
      // Agent reads say which voice speaks, which depends on these settings.
      await bumpAgentsVersion(db, workspaceId);
      return { workspaceId, vendor, settings, updatedAt: now };
    },
    /** Removes the workspace's settings for `vendor`; false when it had none. */
    async remove(workspaceId: string, vendor: SpeechVendor): Promise<boolean> {
      const result = await db
        .deleteFrom('speech_providers')
        .where('workspace_id', '=', workspaceId)
        .where('vendor', '=', vendor)
        .executeTakeFirst();
      const removed = Number(result.numDeletedRows) > 0;
      if (removed) await bumpAgentsVersion(db, workspaceId);
      return removed;
    },
  };
}
