import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Selectable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import type { Db } from './database.ts';
import type { ApiKey, Workspace } from './records.ts';
import type { ApiKeyTable } from './schema.ts';
import { toWorkspace } from './workspaces.ts';

// API keys are 32 random bytes (256 bits) behind a readable prefix. Only their SHA-256 is stored;
// a presented key is looked up by its hash and the stored hash is compared in constant time.

const KEY_PREFIX = 'pk_';
const DISPLAY_PREFIX_LENGTH = 10;

export function generateApiKey(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function toApiKey(row: Selectable<ApiKeyTable>): ApiKey {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
  };
}

export interface CreatedApiKey {
  apiKey: ApiKey;
  /** The key itself: shown once, never stored. */
  secret: string;
}

export function apiKeysRepo(db: Db, clock: Clock) {
  return {
    /** Stores a key for `workspaceId`; generates one unless `secret` is given (bootstrap keys). */
    async create(
      workspaceId: string,
      name: string,
      secret: string = generateApiKey(),
    ): Promise<CreatedApiKey> {
      const row = await db
        .insertInto('api_keys')
        .values({
          id: newId(),
          workspace_id: workspaceId,
          name,
          key_hash: hashApiKey(secret),
          prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
          created_at: clock.now(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { apiKey: toApiKey(row), secret };
    },

    /** The live workspace a key belongs to, or null for an unknown key or a deleted workspace. */
    async authenticate(secret: string): Promise<{ apiKey: ApiKey; workspace: Workspace } | null> {
      const hash = hashApiKey(secret);
      const row = await db
        .selectFrom('api_keys as k')
        .innerJoin('workspaces as w', 'w.id', 'k.workspace_id')
        .selectAll('w')
        .select([
          'k.id as key_id',
          'k.name as key_name',
          'k.prefix as key_prefix',
          'k.key_hash as key_hash',
          'k.created_at as key_created_at',
        ])
        .where('k.key_hash', '=', hash)
        .where('w.deleted_at', 'is', null)
        .executeTakeFirst();
      if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
      return {
        apiKey: {
          id: row.key_id,
          workspaceId: row.id,
          name: row.key_name,
          prefix: row.key_prefix,
          createdAt: row.key_created_at,
        },
        workspace: toWorkspace(row),
      };
    },

    async existsForSecret(secret: string): Promise<boolean> {
      const row = await db
        .selectFrom('api_keys')
        .select('id')
        .where('key_hash', '=', hashApiKey(secret))
        .executeTakeFirst();
      return row !== undefined;
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async list(workspaceId: string): Promise<ApiKey[]> {
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('seq', 'asc')
        .execute();
      return rows.map(toApiKey);
    },

    async revoke(workspaceId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('api_keys')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async revokeAll(workspaceId: string): Promise<number> {
      const result = await db
        .deleteFrom('api_keys')
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type ApiKeysRepo = ReturnType<typeof apiKeysRepo>;
