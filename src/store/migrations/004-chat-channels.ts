import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Chats over text-message channels (sms, whatsapp): the two numbers of the conversation and when
// the other side last wrote (WhatsApp's 24-hour window), plus the index an inbound message uses to
// find its ongoing chat. SQLite takes one ADD COLUMN per statement.
export function chatChannels(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('chats').addColumn('own_number', 'text').execute();
      await db.schema.alterTable('chats').addColumn('remote_number', 'text').execute();
      await db.schema.alterTable('chats').addColumn('last_inbound_at', t.bigint).execute();
      await db.schema
        .createIndex('chats_channel_numbers')
        .on('chats')
        .columns(['channel', 'own_number', 'remote_number', 'seq'])
        .execute();
    },
  };
}
