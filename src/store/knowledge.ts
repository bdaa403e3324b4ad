import { sql, type Selectable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import type { Db, DialectName } from './database.ts';
import type { KnowledgeBaseTable, KnowledgeSourceTable } from './schema.ts';
import { bumpAgentsVersion } from './workspaces.ts';

// Knowledge bases, their sources and the sources' chunks, with a ranked full-text search over the
// chunks. The index is kept by the database (FTS5 triggers on SQLite, a generated tsvector column
// on PostgreSQL), so a chunk is searchable exactly while its row exists.

export type KnowledgeSourceType = 'text' | 'web' | 'pdf';
export type KnowledgeSourceStatus = 'ready' | 'pending' | 'failed';

export interface KnowledgeBase {
  id: string;
  workspaceId: string;
  name: string;
  ragUseCondition: string;
  createdAt: number;
  updatedAt: number;
}

export interface KnowledgeSource {
  id: string;
  workspaceId: string;
  knowledgeBaseId: string;
  type: KnowledgeSourceType;
  title: string;
  url: string | null;
  /** The extracted text. */
  content: string;
  status: KnowledgeSourceStatus;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A source without its text, as source listings read it: the text's start and its length. */
export interface KnowledgeSourceSummary extends Omit<KnowledgeSource, 'content'> {
  /** The first `previewChars` characters (Unicode code points) of the extracted text. */
  preview: string;
  /** Length of the extracted text in Unicode code points. */
  characters: number;
}

export interface SourcePageOptions {
  limit: number;
  offset: number;
  /** Only sources whose title contains this, whatever the case. */
  name?: string;
  /** Characters of the text to read into `preview`. */
  previewChars: number;
}

export interface NewKnowledgeBase {
  name: string;
  ragUseCondition?: string;
}

export type KnowledgeBasePatch = Partial<NewKnowledgeBase>;

export interface NewKnowledgeSource {
  type: KnowledgeSourceType;
  title: string;
  url?: string | null;
  content: string;
  status?: KnowledgeSourceStatus;
  error?: string | null;
}

export interface KnowledgeHit {
  chunkId: string;
  sourceId: string;
  knowledgeBaseId: string;
  text: string;
  /** Higher is better; comparable only within one search. */
  score: number;
}

/** Query words that carry no meaning for retrieval (question words, auxiliaries, pronouns ...). */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are aren as at be because been before being ' +
    'below between both but by can cannot could couldn did didn do does doesn doing don down during ' +
    'each few for from further had hadn has hasn have haven having he her here hers herself him ' +
    'himself his how i if in into is isn it its itself just let ll me might more most must mustn my ' +
    'myself no nor not now of off on once only or other ought our ours ourselves out over own re ' +
    's same shall shan she should shouldn so some such t than that the their theirs them themselves ' +
    'then there these they this those through to too under until up us ve very was wasn we were ' +
    'weren what when where which while who whom why will with won would wouldn you your yours ' +
    'yourself yourselves d m o y also get got tell please thanks thank hi hello hey okay ok know ' +
    'want like need anything something'
  ).split(' '),
);

const MAX_TERMS = 32;

/**
 * The words of a free-text query, lower-cased, deduplicated, without stop words (unless the query
 * has nothing else). Only letters and digits survive, so the terms are safe to put into FTS5 or
 * tsquery syntax: quotes, parentheses, `*`, `:`, `-` and the like cannot reach the parser.
 */
export function searchTerms(query: string): string[] {
  const words =
    query
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  const all = [...new Set(words.filter((w) => w.length > 1 || /\p{N}/u.test(w)))];
  const meaningful = all.filter((w) => !STOP_WORDS.has(w));
  return (meaningful.length > 0 ? meaningful : all).slice(0, MAX_TERMS);
}

function toBase(row: Selectable<KnowledgeBaseTable>): KnowledgeBase {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    ragUseCondition: row.rag_use_condition,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toSource(row: Selectable<KnowledgeSourceTable>): KnowledgeSource {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    knowledgeBaseId: row.knowledge_base_id,
    type: row.type as KnowledgeSourceType,
    title: row.title,
    url: row.url,
    content: row.content,
    status: row.status as KnowledgeSourceStatus,
    error: row.error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Case folding of the source-name filter, the same on every dialect (done here, not in SQL). */
const foldName = (text: string) => text.normalize('NFKC').toLowerCase();

/** Runs `fn` in one transaction (or in the one already open). */
export type Transact = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

const CHUNK_BATCH = 200;

export function knowledgeRepo(db: Db, clock: Clock, dialect: DialectName, transact: Transact) {
  async function insertChunks(
    trx: Db,
    workspaceId: string,
    baseId: string,
    sourceId: string,
    chunks: readonly string[],
  ): Promise<void> {
    const rows = chunks
      .filter((text) => text.trim() !== '')
      .map((text, position) => ({
        id: newId(),
        workspace_id: workspaceId,
        knowledge_base_id: baseId,
        source_id: sourceId,
        position,
        text,
      }));
    for (let i = 0; i < rows.length; i += CHUNK_BATCH) {
      await trx
        .insertInto('knowledge_chunks')
        .values(rows.slice(i, i + CHUNK_BATCH))
        .execute();
    }
  }

  async function baseExists(trx: Db, workspaceId: string, baseId: string): Promise<boolean> {
    const row = await trx
      .selectFrom('knowledge_bases')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', baseId)
      .executeTakeFirst();
    return row !== undefined;
  }

  return {
    async createBase(workspaceId: string, input: NewKnowledgeBase): Promise<KnowledgeBase> {
      const now = clock.now();
      const row = await db
        .insertInto('knowledge_bases')
        .values({
          id: newId(),
          workspace_id: workspaceId,
          name: input.name,
          rag_use_condition: input.ragUseCondition ?? '',
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toBase(row);
    },

    async getBase(workspaceId: string, id: string): Promise<KnowledgeBase | null> {
      const row = await db
        .selectFrom('knowledge_bases')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toBase(row) : null;
    },

    /** Newest first. */
    async listBases(
      workspaceId: string,
      limit: number,
      offset: number,
    ): Promise<{ items: KnowledgeBase[]; total: number }> {
      const rows = await db
        .selectFrom('knowledge_bases')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('seq', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      const count = await db
        .selectFrom('knowledge_bases')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return { items: rows.map(toBase), total: Number(count?.n ?? 0) };
    },

    async updateBase(
      workspaceId: string,
      id: string,
      patch: KnowledgeBasePatch,
    ): Promise<KnowledgeBase | null> {
      const row = await db
        .updateTable('knowledge_bases')
        .set({
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.ragUseCondition !== undefined ? { rag_use_condition: patch.ragUseCondition } : {}),
          updated_at: clock.now(),
        })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toBase(row) : null;
    },

    /**
     * Removes the base with its sources and chunks (and so their index entries), detaching it
     * from every agent (which changes their reads, so the agents version is bumped first).
     */
    async deleteBase(workspaceId: string, id: string): Promise<boolean> {
      return transact(async (trx) => {
        if (!(await baseExists(trx, workspaceId, id))) return false;
        const attached = await trx
          .selectFrom('agent_knowledge')
          .select('agent_id')
          .where('workspace_id', '=', workspaceId)
          .where('knowledge_base_id', '=', id)
          .limit(1)
          .executeTakeFirst();
        if (attached) {
          await bumpAgentsVersion(trx, workspaceId);
          await trx
            .deleteFrom('agent_knowledge')
            .where('workspace_id', '=', workspaceId)
            .where('knowledge_base_id', '=', id)
            .execute();
        }
        await trx
          .deleteFrom('knowledge_chunks')
          .where('workspace_id', '=', workspaceId)
          .where('knowledge_base_id', '=', id)
          .execute();
        await trx
          .deleteFrom('knowledge_sources')
          .where('workspace_id', '=', workspaceId)
          .where('knowledge_base_id', '=', id)
          .execute();
        await trx
          .deleteFrom('knowledge_bases')
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .execute();
        return true;
      });
    },

    /**
     * Adds a source and its chunks (indexed) in one transaction. Null when the base is not the
     * workspace's.
     */
    async addSource(
      workspaceId: string,
      baseId: string,
      input: NewKnowledgeSource,
      chunks: readonly string[],
    ): Promise<KnowledgeSource | null> {
      return transact(async (trx) => {
        if (!(await baseExists(trx, workspaceId, baseId))) return null;
        const now = clock.now();
        const row = await trx
          .insertInto('knowledge_sources')
          .values({
            id: newId(),
            workspace_id: workspaceId,
            knowledge_base_id: baseId,
            type: input.type,
            title: input.title,
            url: input.url ?? null,
            content: input.content,
            status: input.status ?? 'ready',
            error: input.error ?? null,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await insertChunks(trx, workspaceId, baseId, row.id, chunks);
        return toSource(row);
      });
    },

    async getSource(workspaceId: string, id: string): Promise<KnowledgeSource | null> {
      const row = await db
        .selectFrom('knowledge_sources')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toSource(row) : null;
    },

    /** Oldest first. */
    async listSources(workspaceId: string, baseId: string): Promise<KnowledgeSource[]> {
      const rows = await db
        .selectFrom('knowledge_sources')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('knowledge_base_id', '=', baseId)
        .orderBy('seq', 'asc')
        .execute();
      return rows.map(toSource);
    },

    /**
     * A page of the base's sources, oldest first, without their text: only its first
     * `previewChars` characters and its length are read (`substr`/`length` count code points on
     * both dialects). The name filter folds case in JavaScript over the base's titles (so it is the
     * same on both dialects, non-ASCII letters included), then reads only the page's rows.
     */
    async pageSources(
      workspaceId: string,
      baseId: string,
      options: SourcePageOptions,
    ): Promise<{ items: KnowledgeSourceSummary[]; total: number }> {
      const { limit, offset, previewChars } = options;
      if (!Number.isInteger(previewChars) || previewChars < 0) throw new Error('bad previewChars');
      const summaries = () =>
        db
          .selectFrom('knowledge_sources')
          .select([
            'id',
            'workspace_id',
            'knowledge_base_id',
            'type',
            'title',
            'url',
            'status',
            'error',
            'created_at',
            'updated_at',
          ])
          .select(sql<string>`substr(content, 1, ${sql.lit(previewChars)})`.as('preview'))
          .select(sql<number>`length(content)`.as('characters'))
          .where('workspace_id', '=', workspaceId)
          .where('knowledge_base_id', '=', baseId);
      type Row = Awaited<ReturnType<ReturnType<typeof summaries>['execute']>>[number];
      const toSummary = (row: Row): KnowledgeSourceSummary => ({
        id: row.id,
        workspaceId: row.workspace_id,
        knowledgeBaseId: row.knowledge_base_id,
        type: row.type as KnowledgeSourceType,
        title: row.title,
        url: row.url,
        status: row.status as KnowledgeSourceStatus,
        error: row.error,
        createdAt: Number(row.created_at),
        updatedAt: Number(row.updated_at),
        preview: row.preview,
        characters: Number(row.characters),
      });

      const name = options.name ?? '';
      if (name !== '') {
        const term = foldName(name);
        const titles = await db
          .selectFrom('knowledge_sources')
          .select(['id', 'title'])
          .where('workspace_id', '=', workspaceId)
          .where('knowledge_base_id', '=', baseId)
          .orderBy('seq', 'asc')
          .execute();
        const matching = titles.filter((r) => foldName(r.title).includes(term)).map((r) => r.id);
        const pageIds = matching.slice(offset, offset + limit);
        if (pageIds.length === 0) return { items: [], total: matching.length };
        const rows = await summaries().where('id', 'in', pageIds).orderBy('seq', 'asc').execute();
        return { items: rows.map(toSummary), total: matching.length };
      }

      const rows = await summaries().orderBy('seq', 'asc').limit(limit).offset(offset).execute();
      const count = await db
        .selectFrom('knowledge_sources')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('knowledge_base_id', '=', baseId)
        .executeTakeFirst();
      return { items: rows.map(toSummary), total: Number(count?.n ?? 0) };
    },

    /** Sets the source's title only (its text and index stay). Null when not found. */
    async renameSource(workspaceId: string, id: string, title: string): Promise<KnowledgeSource | null> {
      const row = await db
        .updateTable('knowledge_sources')
        .set({ title, updated_at: clock.now() })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toSource(row) : null;
    },

    /** The source's chunks in order. */
    async listChunks(workspaceId: string, sourceId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('knowledge_chunks')
        .select('text')
        .where('workspace_id', '=', workspaceId)
        .where('source_id', '=', sourceId)
        .orderBy('position', 'asc')
        .execute();
      return rows.map((r) => r.text);
    },

    /** Replaces the source's fields and re-indexes it with `chunks`. Null when not found. */
    async replaceSource(
      workspaceId: string,
      id: string,
      input: NewKnowledgeSource,
      chunks: readonly string[],
    ): Promise<KnowledgeSource | null> {
      return transact(async (trx) => {
        const row = await trx
          .updateTable('knowledge_sources')
          .set({
            type: input.type,
            title: input.title,
            url: input.url ?? null,
            content: input.content,
            status: input.status ?? 'ready',
            error: input.error ?? null,
            updated_at: clock.now(),
          })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        if (!row) return null;
        await trx
          .deleteFrom('knowledge_chunks')
          .where('workspace_id', '=', workspaceId)
          .where('source_id', '=', id)
          .execute();
        await insertChunks(trx, workspaceId, row.knowledge_base_id, id, chunks);
        return toSource(row);
      });
    },

    /** Removes the source and its chunks from the index. */
    async deleteSource(workspaceId: string, id: string): Promise<boolean> {
      return transact(async (trx) => {
        const deleted = await trx
          .deleteFrom('knowledge_sources')
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(deleted.numDeletedRows) === 0) return false;
        await trx
          .deleteFrom('knowledge_chunks')
          .where('workspace_id', '=', workspaceId)
          .where('source_id', '=', id)
          .execute();
        return true;
      });
    },

    /**
     * Makes `baseId` the agent's knowledge base, replacing any earlier one. The caller has checked
     * that the agent and the base are the workspace's. Bumps the agents version (agent reads show
     * `knowledge_base_id`).
     */
    async attachBase(workspaceId: string, baseId: string, agentId: string): Promise<void> {
      await transact(async (trx) => {
        await bumpAgentsVersion(trx, workspaceId);
        await trx
          .insertInto('agent_knowledge')
          .values({
            workspace_id: workspaceId,
            agent_id: agentId,
            knowledge_base_id: baseId,
            created_at: clock.now(),
          })
          .onConflict((oc) =>
            oc.column('agent_id').doUpdateSet({ knowledge_base_id: baseId, workspace_id: workspaceId }),
          )
          .execute();
      });
    },

    /** Detaches `baseId` from the agent; false when it was not the agent's base. */
    async detachBase(workspaceId: string, baseId: string, agentId: string): Promise<boolean> {
      return transact(async (trx) => {
        await bumpAgentsVersion(trx, workspaceId);
        const result = await trx
          .deleteFrom('agent_knowledge')
          .where('workspace_id', '=', workspaceId)
          .where('agent_id', '=', agentId)
          .where('knowledge_base_id', '=', baseId)
          .executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      });
    },

    /** The agent's knowledge base, or null. */
    async baseOfAgent(workspaceId: string, agentId: string): Promise<string | null> {
      const row = await db
        .selectFrom('agent_knowledge')
        .select('knowledge_base_id')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', agentId)
        .executeTakeFirst();
      return row?.knowledge_base_id ?? null;
    },

    /** The knowledge base of each of the given agents (absent: none). */
    async basesOfAgents(workspaceId: string, agentIds: readonly string[]): Promise<Map<string, string>> {
      const result = new Map<string, string>();
      if (agentIds.length === 0) return result;
      const rows = await db
        .selectFrom('agent_knowledge')
        .select(['agent_id', 'knowledge_base_id'])
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', 'in', [...new Set(agentIds)])
        .execute();
      for (const r of rows) result.set(r.agent_id, r.knowledge_base_id);
      return result;
    },

    /**
     * The chunks of the given bases (of this workspace only) that best match the free-text
     * query, best first. Any text is accepted: it is reduced to plain words (see searchTerms),
     * which are OR-ed and ranked: BM25 on SQLite; on PostgreSQL length-normalized ts_rank, which
     * put the answering chunk first more often than ts_rank_cd in src/knowledge/retrieval.test.ts.
     */
    async search(
      workspaceId: string,
      baseIds: readonly string[],
      query: string,
      limit: number,
    ): Promise<KnowledgeHit[]> {
      const terms = searchTerms(query);
      if (terms.length === 0 || baseIds.length === 0 || limit <= 0) return [];
      const bases = sql.join([...new Set(baseIds)]);
      type Row = { id: string; source_id: string; knowledge_base_id: string; text: string; score: number };
      let rows: Row[];
      if (dialect === 'sqlite') {
        const match = terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
        const result = await sql<Row>`
          select c.id, c.source_id, c.knowledge_base_id, c.text, -bm25(knowledge_chunks_fts) as score
          from knowledge_chunks_fts
          join knowledge_chunks c on c.seq = knowledge_chunks_fts.rowid
          where knowledge_chunks_fts match ${match}
            and c.workspace_id = ${workspaceId}
            and c.knowledge_base_id in (${bases})
          order by bm25(knowledge_chunks_fts) asc, c.seq asc
          limit ${limit}`.execute(db);
        rows = result.rows;
      } else {
        const tsquery = terms.join(' | ');
        const result = await sql<Row>`
          select c.id, c.source_id, c.knowledge_base_id, c.text, ts_rank(c.tsv, q.query, 1) as score
          from knowledge_chunks c, to_tsquery('english'::regconfig, ${tsquery}) as q(query)
          where c.tsv @@ q.query
            and c.workspace_id = ${workspaceId}
            and c.knowledge_base_id in (${bases})
          order by score desc, c.seq asc
          limit ${limit}`.execute(db);
        rows = result.rows;
      }
      return rows.map((r) => ({
        chunkId: r.id,
        sourceId: r.source_id,
        knowledgeBaseId: r.knowledge_base_id,
        text: r.text,
        score: Number(r.score),
      }));
    },
  };
}

export type KnowledgeRepo = ReturnType<typeof knowledgeRepo>;
