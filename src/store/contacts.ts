import { sql, type Selectable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import type { Db, DialectName } from './database.ts';
import { fromJson, toJson } from './json.ts';
import type { Transact } from './knowledge.ts';
import type { Page } from './records.ts';
import type { ContactTable } from './schema.ts';
import { containsPattern } from './simulations.ts';
import { newestFirstPage } from './paging.ts';

// A workspace's contacts (`/v2/contacts`). The API normalizes numbers and checks emails before
// they get here; this repository keeps the number in E.164, the name folded for search, and the
// client's other fields as one JSON object (`metadata`). A metadata update is merged key by key
// under a row lock, so two updates of different keys never lose each other's change.

/** The client's extra fields of a contact (`contact_metadata`), JSON. */
export type ContactMetadata = Record<string, unknown>;

export interface Contact {
  id: string;
  workspaceId: string;
  name: string;
  /** E.164. */
  phoneNumber: string;
  email: string | null;
  metadata: ContactMetadata;
  createdAt: number;
  updatedAt: number;
}

export interface NewContact {
  name: string;
  phoneNumber: string;
  email?: string | null;
  metadata?: ContactMetadata;
}

export interface ContactPatch {
  name?: string;
  phoneNumber?: string;
  /** null clears it. */
  email?: string | null;
  /** Merged into the stored metadata: given keys replace, a null value removes its key. */
  metadata?: ContactMetadata;
}

/**
 * What a list looks for: a number exactly (E.164, indexed), numbers containing some digits, or
 * names containing some text (case-insensitive).
 */
export type ContactSearch = { phoneNumber: string } | { phoneDigits: string } | { name: string };

export interface ContactListOptions {
  /** From 1. */
  pageNumber: number;
  pageSize: number;
  search?: ContactSearch;
}

function toContact(row: Selectable<ContactTable>): Contact {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    phoneNumber: row.phone_number,
    email: row.email,
    metadata: fromJson<ContactMetadata>(row.metadata) ?? {},
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** `patch` applied to `stored`: given keys replace, a null value removes its key. */
export function mergeMetadata(stored: ContactMetadata, patch: ContactMetadata): ContactMetadata {
  const merged: ContactMetadata = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

const fold = (name: string) => name.toLowerCase();

export function contactsRepo(db: Db, clock: Clock, dialect: DialectName, transact: Transact) {
  async function get(trx: Db, workspaceId: string, id: string, lock = false): Promise<Contact | null> {
    let q = trx
      .selectFrom('contacts')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id);
    if (lock && dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row ? toContact(row) : null;
  }

  return {
    async create(workspaceId: string, input: NewContact): Promise<Contact> {
      const now = clock.now();
      const row = await db
        .insertInto('contacts')
        .values({
          id: newId(),
          workspace_id: workspaceId,
          name: input.name,
          name_folded: fold(input.name),
          phone_number: input.phoneNumber,
          email: input.email ?? null,
          metadata: toJson(input.metadata ?? {}) ?? '{}',
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toContact(row);
    },

    get: (workspaceId: string, id: string) => get(db, workspaceId, id),

    /** Newest first. */
    async list(workspaceId: string, options: ContactListOptions): Promise<Page<Contact>> {
      let base = db.selectFrom('contacts').where('workspace_id', '=', workspaceId);
      const search = options.search;
      if (search && 'phoneNumber' in search) base = base.where('phone_number', '=', search.phoneNumber);
      else if (search && 'phoneDigits' in search)
        base = base.where('phone_number', 'like', `%${search.phoneDigits.replace(/\D/g, '')}%`);
      else if (search)
        base = base.where(
          sql<boolean>`${sql.ref('name_folded')} like ${containsPattern(search.name)} escape '\\'`,
        );
      return newestFirstPage(base, options, toContact);
    },

    /** The updated contact, or null when the workspace has no such contact. */
    async update(workspaceId: string, id: string, patch: ContactPatch): Promise<Contact | null> {
      return transact(async (trx) => {
        const current = await get(trx, workspaceId, id, true);
        if (!current) return null;
        const values: Partial<Omit<ContactTable, 'seq'>> = {};
        if (patch.name !== undefined)
          Object.assign(values, { name: patch.name, name_folded: fold(patch.name) });
        if (patch.phoneNumber !== undefined) values.phone_number = patch.phoneNumber;
        if (patch.email !== undefined) values.email = patch.email;
        if (patch.metadata !== undefined)
          values.metadata = toJson(mergeMetadata(current.metadata, patch.metadata)) ?? '{}';
        if (Object.keys(values).length === 0) return current;
        const row = await trx
          .updateTable('contacts')
          .set({ ...values, updated_at: clock.now() })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return toContact(row);
      });
    },

    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('contacts')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type ContactsRepo = ReturnType<typeof contactsRepo>;
