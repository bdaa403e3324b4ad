import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Knowledge bases: bases, their sources (with the extracted text) and the sources' chunks, plus a
// ranked full-text index over chunk text. SQLite keeps an external-content FTS5 table whose rowid
// is the chunk's seq, kept in step by triggers; PostgreSQL keeps a generated tsvector column with
// a GIN index.
export function knowledge(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('knowledge_bases'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('rag_use_condition', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('knowledge_bases_workspace')
        .on('knowledge_bases')
        .columns(['workspace_id', 'seq'])
        .execute();

      await t
        .seq(db.schema.createTable('knowledge_sources'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('knowledge_base_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('url', 'text')
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('knowledge_sources_base')
        .on('knowledge_sources')
        .columns(['workspace_id', 'knowledge_base_id', 'seq'])
        .execute();

      await t
        .seq(db.schema.createTable('knowledge_chunks'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('knowledge_base_id', 'text', (c) => c.notNull())
        .addColumn('source_id', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('knowledge_chunks_source')
        .on('knowledge_chunks')
        .columns(['source_id', 'position'])
        .execute();
      await db.schema
        .createIndex('knowledge_chunks_base')
        .on('knowledge_chunks')
        .columns(['workspace_id', 'knowledge_base_id'])
        .execute();

      if (dialect === 'postgres') {
        await sql`alter table knowledge_chunks add column tsv tsvector
          generated always as (to_tsvector('english'::regconfig, text)) stored`.execute(db);
        await sql`create index knowledge_chunks_tsv on knowledge_chunks using gin (tsv)`.execute(db);
      } else {
        await sql`create virtual table knowledge_chunks_fts using fts5(
          text, content='knowledge_chunks', content_rowid='seq', tokenize='porter unicode61 remove_diacritics 2'
        )`.execute(db);
        await sql`create trigger knowledge_chunks_fts_insert after insert on knowledge_chunks begin
          insert into knowledge_chunks_fts(rowid, text) values (new.seq, new.text);
        end`.execute(db);
        await sql`create trigger knowledge_chunks_fts_delete after delete on knowledge_chunks begin
          insert into knowledge_chunks_fts(knowledge_chunks_fts, rowid, text) values ('delete', old.seq, old.text);
        end`.execute(db);
        await sql`create trigger knowledge_chunks_fts_update after update on knowledge_chunks begin
          insert into knowledge_chunks_fts(knowledge_chunks_fts, rowid, text) values ('delete', old.seq, old.text);
          insert into knowledge_chunks_fts(rowid, text) values (new.seq, new.text);
        end`.execute(db);
      }
    },
  };
}
