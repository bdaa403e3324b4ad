import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// A workspace's own hosted speech vendors (docs/speech-providers.md): its calls use its key for
// that vendor instead of the server's PARLEY_<VENDOR>_*. The key is a secret Parley must send to
// the vendor, so it is kept as given and never read back through the API.
export function speechProviders(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('speech_providers')
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('vendor', 'text', (c) => c.notNull())
        .addColumn('api_key', 'text', (c) => c.notNull())
        .addColumn('base_url', 'text')
        .addColumn('stt_model', 'text')
        .addColumn('tts_model', 'text')
        .addColumn('voice', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('speech_providers_pk', ['workspace_id', 'vendor'])
        .execute();
    },
  };
}
