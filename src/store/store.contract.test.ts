import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, isUuid, type Clock, type ManualClock } from '../core/index.ts';
import {
  bootstrapWorkspace,
  createStore,
  DEFAULT_MAX_CONCURRENT_CALLS,
  hashApiKey,
  type AgentSpec,
  type BootstrapResult,
  type DatabaseOptions,
  type DialectName,
  type Store,
  type Workspace,
} from './index.ts';
import { storeTargets, TEST_DATABASE_URL } from './testing/index.ts';

// The store contract: every repository behaves the same on every dialect. Each test gets a fresh,
// migrated, empty store driven by a manual clock, so times are exact and nothing sleeps.

/** A spec with keys the agent schema does not name (the store keeps them), typed as one. */
const withExtras = (spec: object) => spec as AgentSpec;

const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const API_KEY = /^pk_[A-Za-z0-9_-]{43}$/;

/**
 * One unmigrated database (a fresh SQLite file or PostgreSQL schema) that several stores can open,
 * as several processes would.
 */
function rawDatabase(dialect: DialectName): {
  options: DatabaseOptions;
  open(clock: Clock): Promise<Store>;
  cleanup(): Promise<void>;
} {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'parley-contract-'));
    const options: DatabaseOptions = { dialect: 'sqlite', file: join(dir, 'parley.db') };
    return {
      options,
      open: (clock) => createStore(options, clock),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const url = TEST_DATABASE_URL;
  if (!url) throw new Error('PARLEY_TEST_DATABASE_URL is not set');
  const schema = `parley_contract_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const options: DatabaseOptions = { dialect: 'postgres', url, schema, poolSize: 4 };
  return {
    options,
    open: (clock) => createStore(options, clock),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

const STORE_MODULE = new URL('./index.ts', import.meta.url).href;

/**
 * A separate Node process with the store open on `options`, as a second server would have. It
 * prints `ready`, then runs bootstrapWorkspace when `go()` is called and resolves with its result;
 * starting every process first and releasing them together makes their bootstraps overlap. (Two
 * SQLite stores in one process cannot contend: better-sqlite3 waits for a lock synchronously.)
 */
async function bootstrapProcess(options: DatabaseOptions, key: string) {
  const script = `
    const { createStore, bootstrapWorkspace } = await import(${JSON.stringify(STORE_MODULE)});
    const options = JSON.parse(process.env.PARLEY_CONTRACT_OPTIONS);
    const store = await createStore(options, { now: () => Date.now(), sleep: async () => {} });
    try {
      await store.isReady();
      process.stdout.write('ready\\n');
      await new Promise((resolve) => process.stdin.once('data', resolve));
      const result = await bootstrapWorkspace(store, process.env.PARLEY_CONTRACT_KEY);
      process.stdout.write(JSON.stringify(result) + '\\n');
    } finally {
      await store.close();
      process.stdin.destroy();
    }
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
    env: { ...process.env, PARLEY_CONTRACT_OPTIONS: JSON.stringify(options), PARLEY_CONTRACT_KEY: key },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`bootstrap process exited with ${code}: ${stderr}`)),
    );
  });
  await Promise.race([
    exited.then(() => {
      throw new Error(`bootstrap process ended before it was ready: ${stderr}`);
    }),
    new Promise<void>((resolve) => {
      const check = () => {
        if (stdout.startsWith('ready\n')) {
          child.stdout.off('data', check);
          resolve();
        }
      };
      child.stdout.on('data', check);
    }),
  ]);
  return {
    async go(): Promise<BootstrapResult> {
      child.stdin.write('go\n');
      await exited;
      return JSON.parse(stdout.slice('ready\n'.length)) as BootstrapResult;
    },
    kill: () => child.kill(),
  };
}

/** A one-character change that keeps the key's shape. */
function tamper(secret: string): string {
  const last = secret.at(-1);
  return secret.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

for (const target of storeTargets()) {
  describe(`store contract [${target.dialect}]`, () => {
    let clock: ManualClock;
    let store: Store;

    beforeEach(async () => {
      clock = createManualClock();
      store = await target.open(clock);
    });

    afterEach(async () => {
      await store.close();
    });

    const workspace = (name = 'acme', extra: { parentId?: string; callsPerSecond?: number | null } = {}) =>
      store.workspaces.create({ name, plan: 'standard', maxConcurrentCalls: 5, ...extra });

    describe('migrations', () => {
      it('reports the store ready and applies nothing on a second migrate', async () => {
        expect(store.dialect).toBe(target.dialect);
        expect(await store.isReady()).toBe(true);
        expect(await store.migrate()).toEqual({ applied: [] });
        expect(await store.migrate()).toEqual({ applied: [] });
        expect(await store.isReady()).toBe(true);
      });

      it('is not ready before migrating, applies every migration once, then is ready', async () => {
        // `store` is already migrated in the same PostgreSQL database (another schema): its
        // migration bookkeeping must not be taken for this one's.
        const raw = rawDatabase(target.dialect);
        const fresh = await raw.open(clock);
        try {
          expect(await fresh.isReady()).toBe(false);
          expect(await fresh.migrate()).toEqual({
            applied: [
              '001-initial',
              '002-agents-version',
              '003-chats',
              '004-chat-channels',
              '005-actions',
              '006-knowledge',
              '007-agent-knowledge',
              '008-calendar',
              '009-calls',
              '010-webhooks',
              '011-batches',
              '012-simulations',
              '013-nodes',
              '014-contacts',
              '015-number-details',
              '016-keyless-chats',
              '017-agent-actions-by-action',
              '018-simulation-lists',
              '019-call-after-work',
              '020-agent-versions',
              '021-ws-media-nodes',
              '022-call-turns',
              '023-twilio-accounts',
              '024-sip-registrations',
              '025-speech-providers',
              '026-call-list-indexes',
            ],
          });
          expect(await fresh.isReady()).toBe(true);
          expect(await fresh.migrate()).toEqual({ applied: [] });
          // A second store on the same database sees the migrations as applied.
          const second = await raw.open(clock);
          try {
            expect(await second.isReady()).toBe(true);
            expect(await second.migrate()).toEqual({ applied: [] });
          } finally {
            await second.close();
          }
        } finally {
          await fresh.close();
          await raw.cleanup();
        }
      });

      it('is not ready once closed', async () => {
        const other = await target.open(clock);
        await other.close();
        expect(await other.isReady()).toBe(false);
      });
    });

    describe('speech providers', () => {
      it("sets, replaces, lists (in vendor order) and removes a workspace's own vendors", async () => {
        const w = await workspace();
        const other = await workspace('other');
        expect(await store.speechProviders.list(w.id)).toEqual([]);
        await store.speechProviders.set(w.id, 'elevenlabs', { apiKey: 'el-1', voice: 'rachel' });
        await store.speechProviders.set(w.id, 'deepgram', { apiKey: 'dg-1' });
        clock.advance(1000);
        const replaced = await store.speechProviders.set(w.id, 'deepgram', {
          apiKey: 'dg-2',
          baseUrl: 'ws://127.0.0.1:9',
          sttModel: 'nova-3',
        });
        await store.speechProviders.set(other.id, 'cartesia', { apiKey: 'c' });
        const listed = await store.speechProviders.list(w.id);
        expect(listed.map((r) => r.vendor)).toEqual(['deepgram', 'elevenlabs']);
        expect(listed[0]).toEqual(replaced);
        expect(listed[0]?.settings).toEqual({
          apiKey: 'dg-2',
          baseUrl: 'ws://127.0.0.1:9',
          sttModel: 'nova-3',
        });
        expect(listed[1]?.settings).toEqual({ apiKey: 'el-1', voice: 'rachel' });
        expect(await store.speechProviders.remove(w.id, 'deepgram')).toBe(true);
        expect(await store.speechProviders.remove(w.id, 'deepgram')).toBe(false);
        expect((await store.speechProviders.list(w.id)).map((r) => r.vendor)).toEqual(['elevenlabs']);
        expect((await store.speechProviders.list(other.id)).map((r) => r.vendor)).toEqual(['cartesia']);
      });
    });

    describe('twilio accounts', () => {
      const SID_A = `AC${'a'.repeat(32)}`;
      const SID_B = `AC${'b'.repeat(32)}`;

      it("sets, replaces, reads and removes a workspace's own account", async () => {
        const w = await workspace();
        expect(await store.twilioAccounts.get(w.id)).toBeNull();
        await store.twilioAccounts.set(w.id, { accountSid: SID_A, authToken: 'one' });
        clock.advance(1000);
        const replaced = await store.twilioAccounts.set(w.id, { accountSid: SID_B, authToken: 'two' });
        expect(await store.twilioAccounts.get(w.id)).toEqual(replaced);
        expect(replaced).toMatchObject({ workspaceId: w.id, accountSid: SID_B, authToken: 'two' });
        expect(await store.twilioAccounts.byAccountSid(SID_B)).toEqual(replaced);
        expect(await store.twilioAccounts.byAccountSid(SID_A)).toBeNull();
        expect(await store.twilioAccounts.remove(w.id)).toBe(true);
        expect(await store.twilioAccounts.remove(w.id)).toBe(false);
        expect(await store.twilioAccounts.get(w.id)).toBeNull();
      });

      it('finds the workspaces holding a twilio number, with their own account or none', async () => {
        const own = await workspace('own');
        const shared = await workspace('shared');
        const sip = await workspace('sip');
        await store.twilioAccounts.set(own.id, { accountSid: SID_A, authToken: 't' });
        await store.phoneNumbers.create(own.id, { number: '+14155550150', provider: 'twilio' });
        await store.phoneNumbers.create(shared.id, { number: '+14155550150', provider: 'twilio' });
        await store.phoneNumbers.create(sip.id, { number: '+14155550150', provider: 'sip' });
        const holders = await store.twilioAccounts.holdersOf('+14155550150');
        expect(holders.sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : 1))).toEqual(
          [
            { workspaceId: own.id, accountSid: SID_A },
            { workspaceId: shared.id, accountSid: null },
          ].sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : 1)),
        );
        expect(await store.twilioAccounts.holdersOf('+14155550151')).toEqual([]);
      });
    });

    describe('workspaces', () => {
      it('creates a workspace with its defaults', async () => {
        const w = await workspace('acme');
        expect(isUuid(w.id)).toBe(true);
        expect(w).toEqual({
          id: w.id,
          parentId: null,
          name: 'acme',
          plan: 'standard',
          maxConcurrentCalls: 5,
          callsPerSecond: null,
          webhookSecret: w.webhookSecret,
          previousWebhookSecret: null,
          previousWebhookSecretExpiresAt: null,
          includeTimelineInWebhook: false,
          defaultAgentId: null,
          usageSeconds: 0,
          createdAt: clock.now(),
          updatedAt: clock.now(),
        });
        expect(await store.workspaces.get(w.id)).toEqual(w);
      });

      it('stores a parent and a fractional calls-per-second limit', async () => {
        const parent = await workspace('parent');
        const child = await workspace('child', { parentId: parent.id, callsPerSecond: 2.5 });
        expect(child.parentId).toBe(parent.id);
        expect(child.callsPerSecond).toBe(2.5);
        expect(await store.workspaces.get(child.id)).toEqual(child);
      });

      it('returns null for an unknown id', async () => {
        await workspace();
        expect(await store.workspaces.get('00000000-0000-4000-8000-000000000000')).toBeNull();
      });

      it('gives each workspace its own Standard Webhooks secret', async () => {
        const a = await workspace('a');
        const b = await workspace('b');
        expect(a.webhookSecret).toMatch(WEBHOOK_SECRET);
        expect(Buffer.from(a.webhookSecret.slice('whsec_'.length), 'base64')).toHaveLength(32);
        expect(b.webhookSecret).toMatch(WEBHOOK_SECRET);
        expect(a.webhookSecret).not.toBe(b.webhookSecret);
      });

      it('updates each patch field on its own and bumps updatedAt', async () => {
        const w = await workspace('acme', { callsPerSecond: 3 });
        const created = w.createdAt;
        let current: Workspace = w;
        const step = async (
          patch: Parameters<Store['workspaces']['update']>[1],
          expected: Partial<Workspace>,
        ) => {
          clock.advance(1_000);
          const updated = await store.workspaces.update(w.id, patch);
          current = { ...current, ...expected, updatedAt: clock.now() };
          expect(updated).toEqual(current);
          expect(await store.workspaces.get(w.id)).toEqual(current);
        };
        await step({ name: 'renamed' }, { name: 'renamed' });
        await step({ plan: 'enterprise' }, { plan: 'enterprise' });
        await step({ maxConcurrentCalls: 250 }, { maxConcurrentCalls: 250 });
        await step({ callsPerSecond: 0.5 }, { callsPerSecond: 0.5 });
        await step({ callsPerSecond: null }, { callsPerSecond: null });
        await step({ includeTimelineInWebhook: true }, { includeTimelineInWebhook: true });
        await step({ includeTimelineInWebhook: false }, { includeTimelineInWebhook: false });
        await step({ defaultAgentId: 'agent-1' }, { defaultAgentId: 'agent-1' });
        await step({ defaultAgentId: null }, { defaultAgentId: null });
        await step({ usageSeconds: 86_400 * 365 * 10 }, { usageSeconds: 86_400 * 365 * 10 });
        await step({ usageSeconds: 0 }, { usageSeconds: 0 });
        await step({}, {});
        expect(current.createdAt).toBe(created);
      });

      it('rotates the webhook secret through update', async () => {
        const w = await workspace();
        const rotated = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
        const updated = await store.workspaces.update(w.id, { webhookSecret: rotated });
        expect(updated?.webhookSecret).toBe(rotated);
        expect((await store.workspaces.get(w.id))?.webhookSecret).toBe(rotated);
        expect(rotated).not.toBe(w.webhookSecret);
      });

      it('sets several fields in one update and leaves other workspaces alone', async () => {
        const w = await workspace('a');
        const other = await workspace('b');
        const updated = await store.workspaces.update(w.id, {
          name: 'x',
          includeTimelineInWebhook: true,
          callsPerSecond: 12,
        });
        expect(updated).toMatchObject({ name: 'x', includeTimelineInWebhook: true, callsPerSecond: 12 });
        expect(await store.workspaces.get(other.id)).toEqual(other);
      });

      it('returns null when updating an unknown or deleted workspace', async () => {
        const w = await workspace();
        expect(
          await store.workspaces.update('00000000-0000-4000-8000-000000000000', { name: 'x' }),
        ).toBeNull();
        expect(await store.workspaces.softDelete(w.id)).toBe(true);
        expect(await store.workspaces.update(w.id, { name: 'x' })).toBeNull();
      });

      it('soft delete hides the workspace everywhere and happens once', async () => {
        const parent = await workspace('parent');
        const keep = await workspace('keep', { parentId: parent.id });
        const gone = await workspace('gone', { parentId: parent.id });
        const top = await workspace('top');

        expect(await store.workspaces.softDelete(gone.id)).toBe(true);
        expect(await store.workspaces.softDelete(gone.id)).toBe(false);
        expect(await store.workspaces.softDelete(top.id)).toBe(true);
        expect(await store.workspaces.softDelete('00000000-0000-4000-8000-000000000000')).toBe(false);

        expect(await store.workspaces.get(gone.id)).toBeNull();
        expect(await store.workspaces.getChild(parent.id, gone.id)).toBeNull();
        expect(await store.workspaces.getChild(parent.id, keep.id)).toEqual(keep);
        const page = await store.workspaces.listChildren(parent.id, 10, 0);
        expect(page.items.map((w) => w.id)).toEqual([keep.id]);
        expect(page.total).toBe(1);
        expect((await store.workspaces.listTopLevel()).map((w) => w.id)).toEqual([parent.id]);
      });

      it('lists children newest first with total, limit and offset', async () => {
        const parent = await workspace('parent');
        const otherParent = await workspace('other parent');
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          ids.push((await workspace(`child ${i}`, { parentId: parent.id })).id);
          await workspace(`foreign ${i}`, { parentId: otherParent.id });
        }
        // Same clock value for every child: order must come from insertion, not from timestamps.
        const newestFirst = [...ids].reverse();
        const all = await store.workspaces.listChildren(parent.id, 100, 0);
        expect(all.items.map((w) => w.id)).toEqual(newestFirst);
        expect(all.items.every((w) => w.parentId === parent.id)).toBe(true);
        expect(all.total).toBe(5);

        const first = await store.workspaces.listChildren(parent.id, 2, 0);
        expect(first).toEqual({ items: all.items.slice(0, 2), total: 5 });
        const middle = await store.workspaces.listChildren(parent.id, 2, 2);
        expect(middle.items.map((w) => w.id)).toEqual(newestFirst.slice(2, 4));
        const last = await store.workspaces.listChildren(parent.id, 2, 4);
        expect(last.items.map((w) => w.id)).toEqual(newestFirst.slice(4));
        expect(last.total).toBe(5);
        expect(await store.workspaces.listChildren(parent.id, 2, 5)).toEqual({ items: [], total: 5 });
        expect(await store.workspaces.listChildren(parent.id, 2, 50)).toEqual({ items: [], total: 5 });

        const none = await store.workspaces.listChildren(ids[0] ?? '', 10, 0);
        expect(none).toEqual({ items: [], total: 0 });
      });

      it('getChild refuses another parent’s child and a top-level workspace', async () => {
        const a = await workspace('a');
        const b = await workspace('b');
        const childOfB = await workspace('child of b', { parentId: b.id });
        expect(await store.workspaces.getChild(b.id, childOfB.id)).toEqual(childOfB);
        expect(await store.workspaces.getChild(a.id, childOfB.id)).toBeNull();
        expect(await store.workspaces.getChild(a.id, b.id)).toBeNull();
        expect(await store.workspaces.getChild(a.id, a.id)).toBeNull();
      });

      it('lists top-level workspaces oldest first, without subaccounts', async () => {
        const first = await workspace('first');
        await workspace('child', { parentId: first.id });
        const second = await workspace('second');
        const third = await workspace('third');
        const listed = await store.workspaces.listTopLevel();
        expect(listed.map((w) => w.id)).toEqual([first.id, second.id, third.id]);
        expect(listed[0]).toEqual(first);
      });
    });

    describe('api keys', () => {
      it('creates a high-entropy key and returns its record without the secret', async () => {
        const w = await workspace();
        const a = await store.apiKeys.create(w.id, 'ci');
        const b = await store.apiKeys.create(w.id, 'ci');
        expect(a.secret).toMatch(API_KEY);
        expect(a.secret.length).toBeGreaterThanOrEqual(40);
        expect(Buffer.from(a.secret.slice(3), 'base64url')).toHaveLength(32);
        expect(b.secret).not.toBe(a.secret);
        expect(b.apiKey.id).not.toBe(a.apiKey.id);
        expect(a.apiKey).toEqual({
          id: a.apiKey.id,
          workspaceId: w.id,
          name: 'ci',
          prefix: a.secret.slice(0, 10),
          createdAt: clock.now(),
        });
        expect(isUuid(a.apiKey.id)).toBe(true);
        expect(JSON.stringify(a.apiKey)).not.toContain(a.secret);
        expect(JSON.stringify(await store.apiKeys.list(w.id))).not.toContain(a.secret);
      });

      it('hashes keys with SHA-256 and matches only the exact secret', async () => {
        const w = await workspace();
        const { secret, apiKey } = await store.apiKeys.create(w.id, 'main');
        const hash = hashApiKey(secret);
        expect(hash).toMatch(/^[0-9a-f]{64}$/);
        expect(hashApiKey(secret)).toBe(hash);
        expect(hashApiKey(tamper(secret))).not.toBe(hash);
        expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');

        const auth = await store.apiKeys.authenticate(secret);
        expect(auth).toEqual({ apiKey, workspace: await store.workspaces.get(w.id) });
        expect(await store.apiKeys.authenticate(tamper(secret))).toBeNull();
        expect(await store.apiKeys.authenticate(secret.slice(0, -1))).toBeNull();
        expect(await store.apiKeys.authenticate(`${secret} `)).toBeNull();
        expect(await store.apiKeys.authenticate(secret.toUpperCase())).toBeNull();
        expect(await store.apiKeys.authenticate('')).toBeNull();
        // What is stored is the hash: presenting the hash itself is not a key.
        expect(await store.apiKeys.authenticate(hash)).toBeNull();
        expect(await store.apiKeys.existsForSecret(hash)).toBe(false);
        expect(await store.apiKeys.existsForSecret(secret)).toBe(true);
        expect(await store.apiKeys.existsForSecret(tamper(secret))).toBe(false);
      });

      it('authenticates to the key’s own workspace', async () => {
        const a = await workspace('a');
        const b = await workspace('b');
        const keyA = await store.apiKeys.create(a.id, 'a');
        const keyB = await store.apiKeys.create(b.id, 'b');
        expect((await store.apiKeys.authenticate(keyA.secret))?.workspace).toEqual(a);
        expect((await store.apiKeys.authenticate(keyB.secret))?.workspace).toEqual(b);
        expect((await store.apiKeys.authenticate(keyB.secret))?.apiKey).toEqual(keyB.apiKey);
      });

      it('returns the current workspace state on authenticate', async () => {
        const w = await workspace();
        const { secret } = await store.apiKeys.create(w.id, 'k');
        clock.advance(5);
        const updated = await store.workspaces.update(w.id, {
          plan: 'enterprise',
          includeTimelineInWebhook: true,
        });
        expect((await store.apiKeys.authenticate(secret))?.workspace).toEqual(updated);
      });

      it('stops authenticating after revoke, and revoke is scoped to the workspace', async () => {
        const w = await workspace('w');
        const other = await workspace('other');
        const { secret, apiKey } = await store.apiKeys.create(w.id, 'k');
        expect(await store.apiKeys.revoke(other.id, apiKey.id)).toBe(false);
        expect(await store.apiKeys.authenticate(secret)).not.toBeNull();
        expect(await store.apiKeys.revoke(w.id, apiKey.id)).toBe(true);
        expect(await store.apiKeys.authenticate(secret)).toBeNull();
        expect(await store.apiKeys.existsForSecret(secret)).toBe(false);
        expect(await store.apiKeys.revoke(w.id, apiKey.id)).toBe(false);
      });

      it('stops authenticating once the workspace is soft-deleted', async () => {
        const w = await workspace();
        const { secret } = await store.apiKeys.create(w.id, 'k');
        expect(await store.workspaces.softDelete(w.id)).toBe(true);
        expect(await store.apiKeys.authenticate(secret)).toBeNull();
      });

      it('lists a workspace’s keys oldest first, counts and revokes all of them', async () => {
        const w = await workspace('w');
        const other = await workspace('other');
        const first = await store.apiKeys.create(w.id, 'first');
        clock.advance(1);
        const second = await store.apiKeys.create(w.id, 'second');
        const third = await store.apiKeys.create(w.id, 'third');
        const foreign = await store.apiKeys.create(other.id, 'foreign');

        expect(await store.apiKeys.list(w.id)).toEqual([first.apiKey, second.apiKey, third.apiKey]);
        expect(await store.apiKeys.list(other.id)).toEqual([foreign.apiKey]);
        expect(await store.apiKeys.count()).toBe(4);

        expect(await store.apiKeys.revokeAll(w.id)).toBe(3);
        expect(await store.apiKeys.list(w.id)).toEqual([]);
        expect(await store.apiKeys.count()).toBe(1);
        expect(await store.apiKeys.authenticate(first.secret)).toBeNull();
        expect(await store.apiKeys.authenticate(foreign.secret)).not.toBeNull();
        expect(await store.apiKeys.revokeAll(w.id)).toBe(0);
      });

      it('counts zero keys on an empty store', async () => {
        expect(await store.apiKeys.count()).toBe(0);
        expect(await store.apiKeys.existsForSecret('pk_anything')).toBe(false);
        expect(await store.apiKeys.authenticate('pk_anything')).toBeNull();
      });

      it('stores a given secret as given', async () => {
        const w = await workspace();
        const given = 'my-bootstrap-key-Ω-0123456789';
        const created = await store.apiKeys.create(w.id, 'bootstrap', given);
        expect(created.secret).toBe(given);
        expect(created.apiKey.prefix).toBe(given.slice(0, 10));
        expect(created.apiKey.name).toBe('bootstrap');
        expect(await store.apiKeys.existsForSecret(given)).toBe(true);
        expect((await store.apiKeys.authenticate(given))?.workspace.id).toBe(w.id);
        expect(await store.apiKeys.authenticate(tamper(given))).toBeNull();
      });

      it('refuses the same secret twice', async () => {
        const a = await workspace('a');
        const b = await workspace('b');
        await store.apiKeys.create(a.id, 'one', 'pk_shared_secret_value_0123456789');
        await expect(
          store.apiKeys.create(b.id, 'two', 'pk_shared_secret_value_0123456789'),
        ).rejects.toThrow();
        expect((await store.apiKeys.authenticate('pk_shared_secret_value_0123456789'))?.workspace.id).toBe(
          a.id,
        );
        expect(await store.apiKeys.count()).toBe(1);
      });
    });

    describe('agents', () => {
      const spec: AgentSpec = { agent: { voice_id: 'v1', prompt: 'Hi', language: 'en' }, is_recording: true };

      it('creates and gets an agent', async () => {
        const w = await workspace();
        const agent = await store.agents.create(w.id, { type: 'voice', name: 'Front desk', spec });
        expect(isUuid(agent.id)).toBe(true);
        expect(agent).toEqual({
          id: agent.id,
          workspaceId: w.id,
          type: 'voice',
          name: 'Front desk',
          spec,
          createdAt: clock.now(),
          updatedAt: clock.now(),
          liveVersionId: null,
        });
        expect(await store.agents.get(w.id, agent.id)).toEqual(agent);
        expect(await store.agents.get(w.id, '00000000-0000-4000-8000-000000000000')).toBeNull();
      });

      it('gets an agent by id in any workspace only through getAnyWorkspace', async () => {
        const w = await workspace();
        const other = await workspace('other');
        const agent = await store.agents.create(w.id, { type: 'chat', name: 'Widget', spec });
        expect(await store.agents.get(other.id, agent.id)).toBeNull();
        expect(await store.agents.getAnyWorkspace(agent.id)).toEqual(agent);
        expect(await store.agents.getAnyWorkspace('00000000-0000-4000-8000-000000000000')).toBeNull();
      });

      it('lists newest first with total, limit and offset edges', async () => {
        const w = await workspace('w');
        const other = await workspace('other');
        const ids: string[] = [];
        for (let i = 0; i < 4; i++) {
          ids.push((await store.agents.create(w.id, { type: 'voice', name: `a${i}`, spec: {} })).id);
          await store.agents.create(other.id, { type: 'chat', name: `o${i}`, spec: {} });
        }
        const newestFirst = [...ids].reverse();
        const all = await store.agents.list(w.id, 10, 0);
        expect(all.items.map((a) => a.id)).toEqual(newestFirst);
        expect(all.total).toBe(4);
        expect(all.items.every((a) => a.workspaceId === w.id)).toBe(true);

        expect((await store.agents.list(w.id, 3, 0)).items.map((a) => a.id)).toEqual(newestFirst.slice(0, 3));
        const tail = await store.agents.list(w.id, 3, 3);
        expect(tail.items.map((a) => a.id)).toEqual(newestFirst.slice(3));
        expect(tail.total).toBe(4);
        expect(await store.agents.list(w.id, 3, 4)).toEqual({ items: [], total: 4 });
        expect(await store.agents.list(w.id, 3, 400)).toEqual({ items: [], total: 4 });
        expect((await store.agents.list(w.id, 1, 1)).items.map((a) => a.id)).toEqual([newestFirst[1]]);

        const empty = await workspace('empty');
        expect(await store.agents.list(empty.id, 10, 0)).toEqual({ items: [], total: 0 });
      });

      it('update replaces name and spec and bumps updatedAt', async () => {
        const w = await workspace();
        const agent = await store.agents.create(w.id, {
          type: 'voice',
          name: 'old',
          spec: withExtras({ a: 1, nested: { keep: true } }),
        });
        clock.advance(60_000);
        const nextSpec = withExtras({ b: [1, 2], nested: { other: 'x' } });
        const updated = await store.agents.update(w.id, agent.id, { name: 'new', spec: nextSpec });
        const expected = {
          ...agent,
          name: 'new',
          spec: nextSpec,
          createdAt: agent.createdAt,
          updatedAt: agent.createdAt + 60_000,
        };
        expect(updated).toEqual(expected);
        expect(await store.agents.get(w.id, agent.id)).toEqual(expected);
        expect(updated?.spec).not.toHaveProperty('a');

        clock.advance(1);
        const again = await store.agents.update(w.id, agent.id, { name: 'new', spec: {} });
        expect(again?.updatedAt).toBe(agent.createdAt + 60_001);
        expect(again?.spec).toEqual({});
        expect(await store.agents.update(w.id, '00000000-0000-4000-8000-000000000000', expected)).toBeNull();
      });

      it('round-trips a JSON spec exactly', async () => {
        const w = await workspace();
        const rich = withExtras({
          agent: {
            prompt: 'Say "hello" \\ then\nnewline\ttab',
            greeting: 'Grüß Gott — こんにちは — مرحبا — 👋🏽 — e\u0301 — 𝄞',
            tools: [{ name: 'book', params: { slots: [1, 2, 3], deep: { deeper: { deepest: [[], {}] } } } }],
          },
          numbers: {
            zero: 0,
            negative: -42,
            fraction: 0.1,
            third: 1 / 3,
            tiny: 1e-7,
            big: 1e21,
            money: 123456789.125,
            maxSafe: Number.MAX_SAFE_INTEGER,
            minSafe: Number.MIN_SAFE_INTEGER,
            maxValue: Number.MAX_VALUE,
            minValue: Number.MIN_VALUE,
          },
          flags: [true, false, null],
          empty: { object: {}, array: [], string: '' },
          'key with spaces & ünïcode 🔑': 'value',
          '': 'empty key',
        });
        const created = await store.agents.create(w.id, {
          type: 'voice',
          name: 'Ünïcödé 名前 🤖',
          spec: rich,
        });
        expect(created.spec).toEqual(rich);
        expect(created.name).toBe('Ünïcödé 名前 🤖');
        const read = await store.agents.get(w.id, created.id);
        expect(read?.spec).toEqual(rich);
        expect(read?.name).toBe('Ünïcödé 名前 🤖');
        const numbers = (read?.spec as { numbers: Record<string, number> }).numbers;
        expect(Object.is(numbers.third, 1 / 3)).toBe(true);
        expect(Object.is(numbers.maxValue, Number.MAX_VALUE)).toBe(true);
        expect(Object.is(numbers.minValue, Number.MIN_VALUE)).toBe(true);

        const updated = await store.agents.update(w.id, created.id, { name: 'x', spec: rich });
        expect(updated?.spec).toEqual(rich);
        expect((await store.agents.list(w.id, 1, 0)).items[0]?.spec).toEqual(rich);
      });

      it('reads a spec that fails the agent schema back with only its valid fields', async () => {
        const w = await workspace();
        // Written before a field was tightened (the API would refuse these values today).
        const stale = withExtras({
          description: 'Front desk',
          is_recording: 'yes',
          voicemail_message: { enabled: true, mode: 'sing', exact_message: 'Call back.' },
          agent: { prompt: 'Hi', interruption_fade_out: 500, timezone: 7, vendor_setting: [1] },
          vendor_field: { kept: true },
        });
        const repaired = {
          description: 'Front desk',
          voicemail_message: { enabled: true, exact_message: 'Call back.' },
          agent: { prompt: 'Hi', vendor_setting: [1] },
          vendor_field: { kept: true },
        };
        const created = await store.agents.create(w.id, { type: 'voice', name: 'a', spec: stale });
        expect(created.spec).toEqual(repaired);
        expect((await store.agents.get(w.id, created.id))?.spec).toEqual(repaired);
        expect((await store.agents.list(w.id, 1, 0)).items[0]?.spec).toEqual(repaired);
      });

      it('delete removes the agent and its number attachments', async () => {
        const w = await workspace();
        const agent = await store.agents.create(w.id, { type: 'voice', name: 'a', spec });
        const keep = await store.agents.create(w.id, { type: 'voice', name: 'keep', spec });
        const n = await store.phoneNumbers.create(w.id, { number: '+14155550100', provider: 'twilio' });
        if (!n) throw new Error('number not created');
        await store.phoneNumbers.attach(w.id, agent.id, [n.id]);
        await store.phoneNumbers.attach(w.id, keep.id, [n.id]);

        expect(await store.agents.delete(w.id, agent.id)).toBe(true);
        expect(await store.agents.get(w.id, agent.id)).toBeNull();
        expect(await store.agents.list(w.id, 10, 0)).toEqual({ items: [keep], total: 1 });
        expect((await store.phoneNumbers.agentsOf(w.id, [n.id])).get(n.id)).toEqual([keep.id]);
        expect((await store.phoneNumbers.attachedTo(w.id, [agent.id])).get(agent.id)).toEqual([]);
        expect(await store.phoneNumbers.getBySlug(w.id, n.slug)).toEqual(n);
        expect(await store.agents.delete(w.id, agent.id)).toBe(false);
      });

      it('scopes get, update and delete to the workspace', async () => {
        const w = await workspace('w');
        const intruder = await workspace('intruder');
        const agent = await store.agents.create(w.id, { type: 'voice', name: 'mine', spec });
        const n = await store.phoneNumbers.create(w.id, { number: '+14155550101', provider: 'twilio' });
        if (!n) throw new Error('number not created');
        await store.phoneNumbers.attach(w.id, agent.id, [n.id]);
        clock.advance(10);

        expect(await store.agents.get(intruder.id, agent.id)).toBeNull();
        expect(await store.agents.update(intruder.id, agent.id, { name: 'stolen', spec: {} })).toBeNull();
        expect(await store.agents.delete(intruder.id, agent.id)).toBe(false);
        expect(await store.agents.list(intruder.id, 10, 0)).toEqual({ items: [], total: 0 });

        expect(await store.agents.get(w.id, agent.id)).toEqual(agent);
        expect((await store.phoneNumbers.attachedTo(w.id, [agent.id])).get(agent.id)).toEqual([n]);
      });
    });

    describe('phone numbers', () => {
      const create = (workspaceId: string, number: string, sip?: Record<string, unknown> | null) =>
        store.phoneNumbers.create(workspaceId, { number, provider: sip ? 'sip' : 'twilio', sip });

      async function mustCreate(workspaceId: string, number: string) {
        const n = await create(workspaceId, number);
        if (!n) throw new Error(`${number} not created`);
        return n;
      }

      it('creates a number with its slug and stores the number as given', async () => {
        const w = await workspace();
        const n = await create(w.id, '+14155550123');
        expect(n).toEqual({
          id: n?.id,
          workspaceId: w.id,
          number: '+14155550123',
          slug: '14155550123',
          provider: 'twilio',
          sip: null,
          defaultAgentId: null,
          friendlyName: '',
          providerName: null,
          createdAt: clock.now(),
          updatedAt: clock.now(),
        });
        expect(isUuid(n?.id ?? '')).toBe(true);
        expect(await store.phoneNumbers.getBySlug(w.id, '14155550123')).toEqual(n);
        // Nothing is normalized by the store: the caller gives E.164.
        const raw = await create(w.id, '442071838750');
        expect(raw?.number).toBe('442071838750');
        expect(raw?.slug).toBe('442071838750');
      });

      it('finds a SIP number in every workspace that holds it, and lists SIP numbers everywhere', async () => {
        const a = await workspace('a');
        const b = await workspace('b');
        const first = await create(a.id, '+14155550140', { host: '10.0.0.1' });
        clock.advance(1);
        const second = await create(b.id, '+14155550140', { host: '10.0.0.2' });
        await create(b.id, '+14155550141');
        const found = await store.phoneNumbers.findEverywhere('+14155550140', 'sip');
        expect(found.map((n) => n.id)).toEqual([first?.id, second?.id]);
        expect(await store.phoneNumbers.findEverywhere('+14155550141', 'sip')).toEqual([]);
        expect((await store.phoneNumbers.listEverywhere('sip')).map((n) => n.workspaceId)).toEqual([
          a.id,
          b.id,
        ]);
      });

      it("keeps a number's latest SIP registration state", async () => {
        const w = await workspace();
        const n = await mustCreate(w.id, '+14155550142');
        expect((await store.sipRegistrations.of([n.id])).size).toBe(0);
        await store.sipRegistrations.save({
          numberId: n.id,
          state: 'failed',
          error: 'SIP 403 Forbidden',
          expiresAt: null,
          retryAt: clock.now() + 30_000,
          node: 'n1',
        });
        clock.advance(5);
        await store.sipRegistrations.save({
          numberId: n.id,
          state: 'registered',
          error: null,
          expiresAt: clock.now() + 300_000,
          retryAt: null,
          node: 'n2',
        });
        expect((await store.sipRegistrations.of([n.id, 'other'])).get(n.id)).toEqual({
          numberId: n.id,
          state: 'registered',
          error: null,
          expiresAt: clock.now() + 300_000,
          retryAt: null,
          node: 'n2',
          updatedAt: clock.now(),
        });
        await store.sipRegistrations.delete(n.id);
        expect((await store.sipRegistrations.of([n.id])).size).toBe(0);
      });

      it('round-trips SIP settings', async () => {
        const w = await workspace();
        const sip = {
          uri: 'sip:trunk@example.com',
          auth: { user: 'ü', password: 'p"w\\d' },
          ports: [5060, 5061],
        };
        const n = await create(w.id, '+14155550124', sip);
        expect(n?.provider).toBe('sip');
        expect(n?.sip).toEqual(sip);
        expect((await store.phoneNumbers.getBySlug(w.id, '14155550124'))?.sip).toEqual(sip);
      });

      it('refuses a duplicate in the same workspace but not in another', async () => {
        const a = await workspace('a');
        const b = await workspace('b');
        const first = await mustCreate(a.id, '+14155550125');
        clock.advance(1);
        expect(await store.phoneNumbers.create(a.id, { number: '+14155550125', provider: 'sip' })).toBeNull();
        expect(await store.phoneNumbers.getBySlug(a.id, first.slug)).toEqual(first);
        expect((await store.phoneNumbers.list(a.id, 10, 0)).total).toBe(1);

        const inB = await mustCreate(b.id, '+14155550125');
        expect(inB.id).not.toBe(first.id);
        expect(inB.workspaceId).toBe(b.id);
        expect(await store.phoneNumbers.getBySlug(b.id, '14155550125')).toEqual(inB);
        expect(await store.phoneNumbers.getBySlug(a.id, '14155550125')).toEqual(first);
      });

      it('finds numbers by slug, ignoring unknown and foreign ones', async () => {
        const w = await workspace('w');
        const other = await workspace('other');
        const one = await mustCreate(w.id, '+14155550126');
        const two = await mustCreate(w.id, '+14155550127');
        await mustCreate(w.id, '+14155550128');
        const foreign = await mustCreate(other.id, '+14155550129');

        const found = await store.phoneNumbers.findBySlugs(w.id, [
          two.slug,
          'nope',
          one.slug,
          foreign.slug,
          one.slug,
        ]);
        expect(found.map((n) => n.id).sort()).toEqual([one.id, two.id].sort());
        expect(found.find((n) => n.id === one.id)).toEqual(one);
        expect(await store.phoneNumbers.findBySlugs(w.id, [])).toEqual([]);
        expect(await store.phoneNumbers.findBySlugs(w.id, ['nope'])).toEqual([]);
        expect(await store.phoneNumbers.getBySlug(w.id, 'nope')).toBeNull();
        expect(await store.phoneNumbers.getBySlug(w.id, '+14155550126')).toBeNull();
      });

      it('lists newest first with total, limit and offset', async () => {
        const w = await workspace('w');
        const other = await workspace('other');
        const ids: string[] = [];
        for (let i = 0; i < 4; i++) {
          ids.push((await mustCreate(w.id, `+1415555020${i}`)).id);
          await mustCreate(other.id, `+1415555030${i}`);
        }
        const newestFirst = [...ids].reverse();
        const all = await store.phoneNumbers.list(w.id, 10, 0);
        expect(all.items.map((n) => n.id)).toEqual(newestFirst);
        expect(all.total).toBe(4);
        expect((await store.phoneNumbers.list(w.id, 2, 1)).items.map((n) => n.id)).toEqual(
          newestFirst.slice(1, 3),
        );
        expect(await store.phoneNumbers.list(w.id, 2, 4)).toEqual({ items: [], total: 4 });
        expect(await store.phoneNumbers.list(w.id, 2, 99)).toEqual({ items: [], total: 4 });
      });

      it('attaches idempotently and detaches once', async () => {
        const w = await workspace();
        const agent = await store.agents.create(w.id, { type: 'voice', name: 'a', spec: {} });
        const n1 = await mustCreate(w.id, '+14155550131');
        const n2 = await mustCreate(w.id, '+14155550132');

        await store.phoneNumbers.attach(w.id, agent.id, [n2.id]);
        clock.advance(1);
        await store.phoneNumbers.attach(w.id, agent.id, [n1.id, n1.id]);
        clock.advance(1);
        await store.phoneNumbers.attach(w.id, agent.id, [n2.id, n1.id]);
        await store.phoneNumbers.attach(w.id, agent.id, []);

        // Order of first attachment survives re-attaching.
        expect((await store.phoneNumbers.attachedTo(w.id, [agent.id])).get(agent.id)).toEqual([n2, n1]);
        expect((await store.phoneNumbers.agentsOf(w.id, [n1.id])).get(n1.id)).toEqual([agent.id]);

        expect(await store.phoneNumbers.detach(w.id, agent.id, n1.id)).toBe(true);
        expect(await store.phoneNumbers.detach(w.id, agent.id, n1.id)).toBe(false);
        expect(await store.phoneNumbers.detach(w.id, agent.id, 'never-attached')).toBe(false);
        expect((await store.phoneNumbers.attachedTo(w.id, [agent.id])).get(agent.id)).toEqual([n2]);
        // Detaching removes only the attachment, not the number.
        expect(await store.phoneNumbers.getBySlug(w.id, n1.slug)).toEqual(n1);
      });

      it('maps agents to numbers and numbers to agents', async () => {
        const w = await workspace();
        const a = await store.agents.create(w.id, { type: 'voice', name: 'a', spec: {} });
        const b = await store.agents.create(w.id, { type: 'voice', name: 'b', spec: {} });
        const idle = await store.agents.create(w.id, { type: 'voice', name: 'idle', spec: {} });
        const n1 = await mustCreate(w.id, '+14155550141');
        const n2 = await mustCreate(w.id, '+14155550142');
        const unused = await mustCreate(w.id, '+14155550143');

        await store.phoneNumbers.attach(w.id, a.id, [n1.id, n2.id]);
        clock.advance(1);
        await store.phoneNumbers.attach(w.id, b.id, [n1.id]);

        const byAgent = await store.phoneNumbers.attachedTo(w.id, [a.id, b.id, idle.id, 'unknown']);
        expect([...byAgent.keys()]).toEqual([a.id, b.id, idle.id, 'unknown']);
        expect(byAgent.get(a.id)).toEqual([n1, n2]);
        expect(byAgent.get(b.id)).toEqual([n1]);
        expect(byAgent.get(idle.id)).toEqual([]);
        expect(byAgent.get('unknown')).toEqual([]);

        const byNumber = await store.phoneNumbers.agentsOf(w.id, [n1.id, n2.id, unused.id]);
        expect([...byNumber.keys()]).toEqual([n1.id, n2.id, unused.id]);
        expect(byNumber.get(n1.id)).toEqual([a.id, b.id]);
        expect(byNumber.get(n2.id)).toEqual([a.id]);
        expect(byNumber.get(unused.id)).toEqual([]);

        expect((await store.phoneNumbers.attachedTo(w.id, [])).size).toBe(0);
        expect((await store.phoneNumbers.agentsOf(w.id, [])).size).toBe(0);
      });

      it('delete removes the number and detaches it from every agent', async () => {
        const w = await workspace();
        const a = await store.agents.create(w.id, { type: 'voice', name: 'a', spec: {} });
        const b = await store.agents.create(w.id, { type: 'voice', name: 'b', spec: {} });
        const gone = await mustCreate(w.id, '+14155550151');
        const kept = await mustCreate(w.id, '+14155550152');
        await store.phoneNumbers.attach(w.id, a.id, [gone.id, kept.id]);
        await store.phoneNumbers.attach(w.id, b.id, [gone.id]);

        expect(await store.phoneNumbers.delete(w.id, gone.slug)).toBe(true);
        expect(await store.phoneNumbers.getBySlug(w.id, gone.slug)).toBeNull();
        expect(await store.phoneNumbers.list(w.id, 10, 0)).toEqual({ items: [kept], total: 1 });
        const byAgent = await store.phoneNumbers.attachedTo(w.id, [a.id, b.id]);
        expect(byAgent.get(a.id)).toEqual([kept]);
        expect(byAgent.get(b.id)).toEqual([]);
        expect((await store.phoneNumbers.agentsOf(w.id, [gone.id])).get(gone.id)).toEqual([]);
        expect(await store.phoneNumbers.delete(w.id, gone.slug)).toBe(false);

        // The number can be imported again afterwards.
        const again = await mustCreate(w.id, '+14155550151');
        expect(again.id).not.toBe(gone.id);
      });

      it('scopes every operation to the workspace', async () => {
        const w = await workspace('w');
        const intruder = await workspace('intruder');
        const agent = await store.agents.create(w.id, { type: 'voice', name: 'a', spec: {} });
        const n = await mustCreate(w.id, '+14155550161');
        await store.phoneNumbers.attach(w.id, agent.id, [n.id]);

        expect(await store.phoneNumbers.getBySlug(intruder.id, n.slug)).toBeNull();
        expect(await store.phoneNumbers.findBySlugs(intruder.id, [n.slug])).toEqual([]);
        expect(await store.phoneNumbers.list(intruder.id, 10, 0)).toEqual({ items: [], total: 0 });
        expect(await store.phoneNumbers.delete(intruder.id, n.slug)).toBe(false);
        expect(await store.phoneNumbers.detach(intruder.id, agent.id, n.id)).toBe(false);
        expect((await store.phoneNumbers.attachedTo(intruder.id, [agent.id])).get(agent.id)).toEqual([]);
        expect((await store.phoneNumbers.agentsOf(intruder.id, [n.id])).get(n.id)).toEqual([]);

        expect(await store.phoneNumbers.getBySlug(w.id, n.slug)).toEqual(n);
        expect((await store.phoneNumbers.attachedTo(w.id, [agent.id])).get(agent.id)).toEqual([n]);
      });
    });

    describe('chats', () => {
      const CHAT_A = '11111111-1111-4111-8111-111111111111';
      const CHAT_B = '22222222-2222-4222-8222-222222222222';
      const newChat = (id: string, agentId: string, extra: Record<string, unknown> = {}) => ({
        id,
        agentId,
        channel: 'api',
        metadata: { name: 'Ann', n: 1 },
        state: { history: [], started: true },
        ...extra,
      });

      it('creates and gets a chat, scoped to its workspace', async () => {
        const w = await workspace();
        const other = await workspace('other');
        const chat = await store.chats.create(w.id, newChat(CHAT_A, 'agent-1'));
        expect(chat).toEqual({
          seq: expect.any(Number),
          id: CHAT_A,
          workspaceId: w.id,
          agentId: 'agent-1',
          status: 'ongoing',
          channel: 'api',
          metadata: { name: 'Ann', n: 1 },
          state: { history: [], started: true },
          version: 1,
          createdAt: clock.now(),
          updatedAt: clock.now(),
          ownNumber: null,
          remoteNumber: null,
          lastInboundAt: null,
          openedWithoutKey: false,
          agentVersionId: null,
        });
        expect(await store.chats.get(w.id, CHAT_A)).toEqual(chat);
        expect(await store.chats.get(other.id, CHAT_A)).toBeNull();
        expect(await store.chats.get(w.id, CHAT_B)).toBeNull();
        expect(await store.chats.getAnyWorkspace(CHAT_A)).toEqual(chat);
        expect(await store.chats.getAnyWorkspace(CHAT_B)).toBeNull();
      });

      it('refuses an id that exists in any workspace', async () => {
        const w = await workspace();
        const other = await workspace('other');
        expect(await store.chats.create(w.id, newChat(CHAT_A, 'a'))).not.toBeNull();
        expect(await store.chats.create(w.id, newChat(CHAT_A, 'a'))).toBeNull();
        expect(await store.chats.create(other.id, newChat(CHAT_A, 'b'))).toBeNull();
        expect((await store.chats.get(w.id, CHAT_A))?.agentId).toBe('a');
        expect(await store.chats.get(other.id, CHAT_A)).toBeNull();
      });

      it('lists newest first by cursor, filtered by agent and workspace', async () => {
        const w = await workspace();
        const other = await workspace('other');
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          const id = `00000000-0000-4000-8000-00000000000${i}`;
          ids.push(id);
          await store.chats.create(w.id, newChat(id, i % 2 === 0 ? 'even' : 'odd'));
        }
        await store.chats.create(other.id, newChat('00000000-0000-4000-8000-000000000009', 'even'));
        const newest = [...ids].reverse();

        const first = await store.chats.list(w.id, { limit: 2 });
        expect(first.items.map((c) => c.id)).toEqual(newest.slice(0, 2));
        expect(first.hasMore).toBe(true);
        expect(first.lastSeq).toBe(first.items[1]?.seq);
        const second = await store.chats.list(w.id, { limit: 2, beforeSeq: first.lastSeq ?? 0 });
        expect(second.items.map((c) => c.id)).toEqual(newest.slice(2, 4));
        expect(second.hasMore).toBe(true);
        const third = await store.chats.list(w.id, { limit: 2, beforeSeq: second.lastSeq ?? 0 });
        expect(third.items.map((c) => c.id)).toEqual(newest.slice(4));
        expect(third.hasMore).toBe(false);

        const even = await store.chats.list(w.id, { agentId: 'even', limit: 10 });
        expect(even.items.map((c) => c.id)).toEqual([ids[4], ids[2], ids[0]]);
        expect(even.hasMore).toBe(false);
        expect(await store.chats.list(w.id, { agentId: 'none', limit: 10 })).toEqual({
          items: [],
          lastSeq: null,
          hasMore: false,
        });
        const exact = await store.chats.list(w.id, { limit: 5 });
        expect(exact.items).toHaveLength(5);
        expect(exact.hasMore).toBe(false);
      });

      it('saves state only at the expected version', async () => {
        const w = await workspace();
        const other = await workspace('other');
        await store.chats.create(w.id, newChat(CHAT_A, 'a'));
        clock.advance(1000);
        expect(await store.chats.saveState(w.id, CHAT_A, 1, { status: 'ongoing', state: { turn: 1 } })).toBe(
          true,
        );
        // A writer still holding version 1 lost the race.
        expect(await store.chats.saveState(w.id, CHAT_A, 1, { status: 'completed', state: { x: 1 } })).toBe(
          false,
        );
        expect(await store.chats.saveState(other.id, CHAT_A, 2, { status: 'completed', state: {} })).toBe(
          false,
        );
        const saved = await store.chats.get(w.id, CHAT_A);
        expect(saved).toMatchObject({ status: 'ongoing', state: { turn: 1 }, version: 2 });
        expect(saved?.updatedAt).toBe(clock.now());
        expect(saved?.createdAt).toBe(clock.now() - 1000);
        expect(
          await store.chats.saveState(w.id, CHAT_A, 2, { status: 'completed', state: { turn: 2 } }),
        ).toBe(true);
        expect(await store.chats.get(w.id, CHAT_A)).toMatchObject({ status: 'completed', version: 3 });
        expect(await store.chats.saveState(w.id, CHAT_B, 1, { status: 'ongoing', state: {} })).toBe(false);
      });

      it('cancels within the workspace and moves the version', async () => {
        const w = await workspace();
        const other = await workspace('other');
        await store.chats.create(w.id, newChat(CHAT_A, 'a'));
        expect(await store.chats.cancel(other.id, CHAT_A)).toBeNull();
        expect(await store.chats.cancel(w.id, CHAT_B)).toBeNull();
        const cancelled = await store.chats.cancel(w.id, CHAT_A);
        expect(cancelled).toMatchObject({ id: CHAT_A, status: 'cancelled', version: 2 });
        expect(await store.chats.saveState(w.id, CHAT_A, 1, { status: 'ongoing', state: {} })).toBe(false);
        expect((await store.chats.get(w.id, CHAT_A))?.status).toBe('cancelled');
      });

      describe('text-message channels', () => {
        const OWN = '+14155550100';
        const REMOTE = '+14155550111';
        const CHAT_C = '33333333-3333-4333-8333-333333333333';
        const CHAT_D = '44444444-4444-4444-8444-444444444444';
        const sms = { channel: 'sms', ownNumber: OWN, remoteNumber: REMOTE };
        const smsChat = (id: string, extra: Record<string, unknown> = {}) =>
          newChat(id, 'a', { channel: 'sms', ownNumber: OWN, remoteNumber: REMOTE, ...extra });

        it('creates a chat with its numbers', async () => {
          const w = await workspace();
          const chat = await store.chats.create(w.id, smsChat(CHAT_A));
          expect(chat).toMatchObject({
            channel: 'sms',
            ownNumber: OWN,
            remoteNumber: REMOTE,
            lastInboundAt: null,
          });
          expect(await store.chats.get(w.id, CHAT_A)).toEqual(chat);
        });

        it('finds the newest ongoing chat of a pair, across workspaces or in one', async () => {
          const w = await workspace();
          const other = await workspace('other');
          expect(await store.chats.findOngoing(sms)).toBeNull();
          await store.chats.create(w.id, smsChat(CHAT_A));
          await store.chats.create(w.id, smsChat(CHAT_B));
          // Same numbers on another channel, reversed numbers, an api chat: never matched.
          await store.chats.create(w.id, smsChat(CHAT_C, { channel: 'whatsapp' }));
          await store.chats.create(
            w.id,
            newChat(CHAT_D, 'a', { channel: 'sms', ownNumber: REMOTE, remoteNumber: OWN }),
          );
          expect((await store.chats.findOngoing(sms))?.id).toBe(CHAT_B);
          expect((await store.chats.findOngoing(sms, w.id))?.id).toBe(CHAT_B);
          expect(await store.chats.findOngoing(sms, other.id)).toBeNull();
          expect((await store.chats.findOngoing({ ...sms, channel: 'whatsapp' }))?.id).toBe(CHAT_C);

          // The newest is completed: the older ongoing one is found; when none is ongoing, nothing.
          expect(await store.chats.saveState(w.id, CHAT_B, 1, { status: 'completed', state: {} })).toBe(true);
          expect((await store.chats.findOngoing(sms))?.id).toBe(CHAT_A);
          await store.chats.cancel(w.id, CHAT_A);
          expect(await store.chats.findOngoing(sms)).toBeNull();
        });

        it('records last_inbound_at with the state save, and reports the latest per pair', async () => {
          const w = await workspace();
          const other = await workspace('other');
          await store.chats.create(w.id, smsChat(CHAT_A));
          await store.chats.create(w.id, smsChat(CHAT_B));
          expect(await store.chats.lastInboundAt(w.id, sms)).toBeNull();
          clock.advance(1000);
          const first = clock.now();
          expect(
            await store.chats.saveState(w.id, CHAT_A, 1, {
              status: 'ongoing',
              state: { t: 1 },
              lastInboundAt: first,
            }),
          ).toBe(true);
          // A writer at a stale version changes nothing, last_inbound_at included.
          expect(
            await store.chats.saveState(w.id, CHAT_A, 1, {
              status: 'ongoing',
              state: {},
              lastInboundAt: first + 5,
            }),
          ).toBe(false);
          expect(await store.chats.get(w.id, CHAT_A)).toMatchObject({ lastInboundAt: first, version: 2 });
          // A save without it keeps it.
          expect(await store.chats.saveState(w.id, CHAT_A, 2, { status: 'completed', state: {} })).toBe(true);
          expect((await store.chats.get(w.id, CHAT_A))?.lastInboundAt).toBe(first);

          clock.advance(1000);
          await store.chats.saveState(w.id, CHAT_B, 1, {
            status: 'ongoing',
            state: {},
            lastInboundAt: clock.now(),
          });
          expect(await store.chats.lastInboundAt(w.id, sms)).toBe(clock.now());
          expect(await store.chats.lastInboundAt(other.id, sms)).toBeNull();
          expect(await store.chats.lastInboundAt(w.id, { ...sms, channel: 'whatsapp' })).toBeNull();
        });
      });
    });

    describe('actions', () => {
      const transfer = { name: 'Front desk 📞 転送', phone: '+14155550100' };
      const newTransfer = (name = transfer.name) => ({
        kind: 'LIVE_TRANSFER' as const,
        name,
        config: { ...transfer, name },
      });

      it('creates, gets, lists newest first, updates and deletes an action', async () => {
        const w = await workspace();
        const other = await workspace('other');
        const a = await store.actions.create(w.id, newTransfer());
        expect(isUuid(a.id)).toBe(true);
        expect(a).toEqual({
          id: a.id,
          workspaceId: w.id,
          kind: 'LIVE_TRANSFER',
          name: 'Front desk 📞 転送',
          config: transfer,
          createdAt: clock.now(),
          updatedAt: clock.now(),
        });
        expect(await store.actions.get(w.id, a.id)).toEqual(a);
        expect(await store.actions.get(other.id, a.id)).toBeNull();
        clock.advance(1000);
        const b = await store.actions.create(w.id, {
          kind: 'INFORMATION_EXTRACTOR',
          name: 'email',
          config: { identifier: 'email', description: 'The email', kind: 'open_question' },
        });
        const page = await store.actions.list(w.id, 10, 0);
        expect(page.total).toBe(2);
        expect(page.items.map((x) => x.id)).toEqual([b.id, a.id]);
        expect((await store.actions.list(w.id, 1, 1)).items.map((x) => x.id)).toEqual([a.id]);
        expect(await store.actions.list(other.id, 10, 0)).toEqual({ items: [], total: 0 });
        expect((await store.actions.findByIds(w.id, [a.id, b.id, a.id])).map((x) => x.id)).toEqual([
          a.id,
          b.id,
        ]);
        expect(await store.actions.findByIds(other.id, [a.id])).toEqual([]);

        clock.advance(1000);
        const updated = await store.actions.update(w.id, a.id, {
          name: '  spaced  ',
          config: { ...transfer, name: '  spaced  ' },
        });
        expect(updated).toEqual({
          ...a,
          name: '  spaced  ',
          config: { ...transfer, name: '  spaced  ' },
          updatedAt: clock.now(),
        });
        expect(await store.actions.update(other.id, a.id, { name: 'x', config: {} })).toBeNull();

        expect(await store.actions.delete(other.id, a.id)).toBe(false);
        expect(await store.actions.delete(w.id, a.id)).toBe(true);
        expect(await store.actions.delete(w.id, a.id)).toBe(false);
        expect(await store.actions.get(w.id, a.id)).toBeNull();
      });

      it('attaches and detaches actions, in attachment order, and forgets them with the agent or action', async () => {
        const w = await workspace();
        const agent = await store.agents.create(w.id, { type: 'outbound', name: 'a', spec: {} });
        const second = await store.agents.create(w.id, { type: 'outbound', name: 'b', spec: {} });
        const a = await store.actions.create(w.id, newTransfer('one'));
        const b = await store.actions.create(w.id, newTransfer('two'));
        await store.actions.attach(w.id, agent.id, [b.id]);
        clock.advance(10);
        await store.actions.attach(w.id, agent.id, [a.id, b.id, a.id]);
        await store.actions.attach(w.id, second.id, [a.id]);
        const ids = async (agentId: string) =>
          ((await store.actions.attachedTo(w.id, [agentId])).get(agentId) ?? []).map((x) => x.id);
        expect(await ids(agent.id)).toEqual([b.id, a.id]);
        const both = await store.actions.attachedTo(w.id, [agent.id, second.id, 'nobody']);
        expect(both.get(second.id)?.map((x) => x.id)).toEqual([a.id]);
        expect(both.get('nobody')).toEqual([]);
        expect((await store.actions.attachedTo(w.id, [])).size).toBe(0);

        expect(await store.actions.detach(w.id, agent.id, [b.id, b.id])).toBe(1);
        expect(await store.actions.detach(w.id, agent.id, [b.id])).toBe(0);
        expect(await ids(agent.id)).toEqual([a.id]);

        // Deleting the action detaches it everywhere; deleting an agent drops its attachments.
        await store.actions.delete(w.id, a.id);
        expect(await ids(agent.id)).toEqual([]);
        expect(await ids(second.id)).toEqual([]);
        await store.actions.attach(w.id, second.id, [b.id]);
        await store.agents.delete(w.id, second.id);
        expect(await ids(second.id)).toEqual([]);
        await store.actions.attach(w.id, agent.id, [b.id]);
        expect(await ids(agent.id)).toEqual([b.id]);
      });

      it('bumps the agents version on attach, detach and changes to attached actions only', async () => {
        const w = await workspace();
        const agent = await store.agents.create(w.id, { type: 'outbound', name: 'a', spec: {} });
        const v = () => store.workspaces.agentsVersion(w.id);
        const a = await store.actions.create(w.id, newTransfer());
        const loose = await store.actions.create(w.id, newTransfer('loose'));
        let last = await v();
        const moved = async () => {
          const now = await v();
          const changed = now > last;
          last = now;
          return changed;
        };
        expect(await moved()).toBe(false);
        await store.actions.update(w.id, loose.id, { name: 'x', config: {} });
        expect(await moved()).toBe(false);
        await store.actions.attach(w.id, agent.id, [a.id]);
        expect(await moved()).toBe(true);
        await store.actions.update(w.id, a.id, { name: 'y', config: {} });
        expect(await moved()).toBe(true);
        await store.actions.detach(w.id, agent.id, [a.id]);
        expect(await moved()).toBe(true);
        await store.actions.delete(w.id, loose.id);
        expect(await moved()).toBe(false);
        await store.actions.attach(w.id, agent.id, [a.id]);
        expect(await moved()).toBe(true);
        await store.actions.delete(w.id, a.id);
        expect(await moved()).toBe(true);
      });

      it('rolls an attach back with its transaction', async () => {
        const w = await workspace();
        const agent = await store.agents.create(w.id, { type: 'outbound', name: 'a', spec: {} });
        const a = await store.actions.create(w.id, newTransfer());
        const before = await store.workspaces.agentsVersion(w.id);
        await expect(
          store.transaction(async (repos) => {
            await repos.actions.attach(w.id, agent.id, [a.id]);
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        expect((await store.actions.attachedTo(w.id, [agent.id])).get(agent.id)).toEqual([]);
        expect(await store.workspaces.agentsVersion(w.id)).toBe(before);
      });
    });

    describe('knowledge bases', () => {
      const faq = [
        'Our clinic opens at 8 am on weekdays and closes at 6 pm.',
        'Teeth whitening costs 350 dollars per session.',
        'Parking is free behind the building.',
      ];

      async function baseWithSource(workspaceId: string, chunks = faq) {
        const base = await store.knowledge.createBase(workspaceId, {
          name: 'faq',
          ragUseCondition: 'prices',
        });
        const source = await store.knowledge.addSource(
          workspaceId,
          base.id,
          { type: 'text', title: 'FAQ', content: chunks.join('\n\n') },
          chunks,
        );
        if (!source) throw new Error('source not added');
        return { base, source };
      }

      it('attaches one base per agent, detaches, and bumps the agents version each time', async () => {
        const w = await workspace();
        const other = await workspace('other');
        const agent = await store.agents.create(w.id, { type: 'voice', name: 'kb', spec: {} });
        const second = await store.agents.create(w.id, { type: 'voice', name: 'kb2', spec: {} });
        const a = await store.knowledge.createBase(w.id, { name: 'a' });
        const b = await store.knowledge.createBase(w.id, { name: 'b' });
        expect(await store.knowledge.baseOfAgent(w.id, agent.id)).toBeNull();

        let version = await store.workspaces.agentsVersion(w.id);
        const bumped = async () => {
          const next = await store.workspaces.agentsVersion(w.id);
          expect(next).toBeGreaterThan(version);
          version = next;
        };
        await store.knowledge.attachBase(w.id, a.id, agent.id);
        await bumped();
        expect(await store.knowledge.baseOfAgent(w.id, agent.id)).toBe(a.id);
        await store.knowledge.attachBase(w.id, b.id, agent.id);
        await bumped();
        expect(await store.knowledge.baseOfAgent(w.id, agent.id)).toBe(b.id);
        await store.knowledge.attachBase(w.id, b.id, second.id);
        expect(await store.knowledge.basesOfAgents(w.id, [agent.id, second.id, 'none'])).toEqual(
          new Map([
            [agent.id, b.id],
            [second.id, b.id],
          ]),
        );
        expect(await store.knowledge.baseOfAgent(other.id, agent.id)).toBeNull();
        expect(await store.knowledge.basesOfAgents(w.id, [])).toEqual(new Map());

        version = await store.workspaces.agentsVersion(w.id);
        expect(await store.knowledge.detachBase(w.id, a.id, agent.id)).toBe(false);
        expect(await store.knowledge.baseOfAgent(w.id, agent.id)).toBe(b.id);
        expect(await store.knowledge.detachBase(w.id, b.id, agent.id)).toBe(true);
        await bumped();
        expect(await store.knowledge.baseOfAgent(w.id, agent.id)).toBeNull();

        // Deleting the base detaches it from every agent; deleting an agent drops its attachment.
        await store.knowledge.attachBase(w.id, b.id, agent.id);
        version = await store.workspaces.agentsVersion(w.id);
        expect(await store.knowledge.deleteBase(w.id, b.id)).toBe(true);
        await bumped();
        expect(await store.knowledge.basesOfAgents(w.id, [agent.id, second.id])).toEqual(new Map());
        await store.knowledge.attachBase(w.id, a.id, second.id);
        await store.transaction((repos) => repos.agents.delete(w.id, second.id));
        expect(await store.knowledge.baseOfAgent(w.id, second.id)).toBeNull();
      });

      it('creates, reads, lists, updates and deletes bases', async () => {
        const w = await workspace();
        const other = await workspace('other');
        const first = await store.knowledge.createBase(w.id, { name: 'first' });
        expect(isUuid(first.id)).toBe(true);
        expect(first).toEqual({
          id: first.id,
          workspaceId: w.id,
          name: 'first',
          ragUseCondition: '',
          createdAt: clock.now(),
          updatedAt: clock.now(),
        });
        clock.advance(1000);
        const second = await store.knowledge.createBase(w.id, { name: 'second', ragUseCondition: 'billing' });
        expect(await store.knowledge.getBase(w.id, first.id)).toEqual(first);
        expect(await store.knowledge.getBase(other.id, first.id)).toBeNull();
        expect(await store.knowledge.listBases(w.id, 10, 0)).toEqual({ items: [second, first], total: 2 });
        expect(await store.knowledge.listBases(w.id, 1, 1)).toEqual({ items: [first], total: 2 });
        expect(await store.knowledge.listBases(other.id, 10, 0)).toEqual({ items: [], total: 0 });

        clock.advance(1000);
        const updated = await store.knowledge.updateBase(w.id, first.id, {
          ragUseCondition: 'opening hours',
        });
        expect(updated).toEqual({ ...first, ragUseCondition: 'opening hours', updatedAt: clock.now() });
        expect(await store.knowledge.updateBase(other.id, first.id, { name: 'stolen' })).toBeNull();
        expect(await store.knowledge.getBase(w.id, first.id)).toEqual(updated);

        expect(await store.knowledge.deleteBase(other.id, first.id)).toBe(false);
        expect(await store.knowledge.deleteBase(w.id, first.id)).toBe(true);
        expect(await store.knowledge.deleteBase(w.id, first.id)).toBe(false);
        expect(await store.knowledge.getBase(w.id, first.id)).toBeNull();
        expect(await store.knowledge.listBases(w.id, 10, 0)).toEqual({ items: [second], total: 1 });
      });

      it('adds sources with their chunks and finds them ranked', async () => {
        const w = await workspace();
        const { base, source } = await baseWithSource(w.id);
        expect(source).toEqual({
          id: source.id,
          workspaceId: w.id,
          knowledgeBaseId: base.id,
          type: 'text',
          title: 'FAQ',
          url: null,
          content: faq.join('\n\n'),
          status: 'ready',
          error: null,
          createdAt: clock.now(),
          updatedAt: clock.now(),
        });
        const web = await store.knowledge.addSource(
          w.id,
          base.id,
          {
            type: 'web',
            title: 'Site',
            url: 'https://example.com',
            content: '',
            status: 'failed',
            error: 'HTTP 404',
          },
          [],
        );
        expect(web).toMatchObject({
          type: 'web',
          url: 'https://example.com',
          status: 'failed',
          error: 'HTTP 404',
        });
        expect(await store.knowledge.getSource(w.id, source.id)).toEqual(source);
        expect(await store.knowledge.listSources(w.id, base.id)).toEqual([source, web]);
        expect(await store.knowledge.listChunks(w.id, source.id)).toEqual(faq);
        // Unknown base, or another workspace's: nothing is added.
        const other = await workspace('other');
        expect(
          await store.knowledge.addSource(other.id, base.id, { type: 'text', title: 'x', content: 'x' }, [
            'x',
          ]),
        ).toBeNull();

        const hits = await store.knowledge.search(w.id, [base.id], 'How much is teeth whitening?', 3);
        expect(hits[0]).toEqual({
          chunkId: expect.any(String),
          sourceId: source.id,
          knowledgeBaseId: base.id,
          text: faq[1],
          score: expect.any(Number),
        });
        for (let i = 1; i < hits.length; i++)
          expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
        expect((await store.knowledge.search(w.id, [base.id], 'parking', 3)).map((h) => h.text)).toEqual([
          faq[2],
        ]);
        expect(await store.knowledge.search(w.id, [base.id], 'parking whitening opens', 1)).toHaveLength(1);
        expect(await store.knowledge.search(w.id, [base.id], 'submarine', 3)).toEqual([]);
        expect(await store.knowledge.search(w.id, [], 'parking', 3)).toEqual([]);
      });

      it('matches word forms (stemming) and ignores case', async () => {
        const w = await workspace();
        const { base } = await baseWithSource(w.id);
        expect((await store.knowledge.search(w.id, [base.id], 'OPENING', 3)).map((h) => h.text)).toEqual([
          faq[0],
        ]);
        expect((await store.knowledge.search(w.id, [base.id], 'sessions', 3)).map((h) => h.text)).toEqual([
          faq[1],
        ]);
      });

      it('re-indexes a replaced source', async () => {
        const w = await workspace();
        const { base, source } = await baseWithSource(w.id);
        clock.advance(5000);
        const replaced = await store.knowledge.replaceSource(
          w.id,
          source.id,
          { type: 'text', title: 'FAQ v2', content: 'Implants start at 3200 dollars.' },
          ['Implants start at 3200 dollars.'],
        );
        expect(replaced).toEqual({
          ...source,
          title: 'FAQ v2',
          content: 'Implants start at 3200 dollars.',
          updatedAt: clock.now(),
        });
        expect(await store.knowledge.listChunks(w.id, source.id)).toEqual([
          'Implants start at 3200 dollars.',
        ]);
        expect(await store.knowledge.search(w.id, [base.id], 'parking whitening', 3)).toEqual([]);
        expect((await store.knowledge.search(w.id, [base.id], 'implants', 3)).map((h) => h.sourceId)).toEqual(
          [source.id],
        );
        const other = await workspace('other');
        expect(
          await store.knowledge.replaceSource(
            other.id,
            source.id,
            { type: 'text', title: 'x', content: 'x' },
            ['x'],
          ),
        ).toBeNull();
        expect(await store.knowledge.listChunks(w.id, source.id)).toEqual([
          'Implants start at 3200 dollars.',
        ]);
      });

      it('removes deleted sources and bases from search', async () => {
        const w = await workspace();
        const { base, source } = await baseWithSource(w.id);
        const kept = await store.knowledge.addSource(
          w.id,
          base.id,
          { type: 'text', title: 'More', content: 'Parking permits are sold at the desk.' },
          ['Parking permits are sold at the desk.'],
        );
        expect(await store.knowledge.search(w.id, [base.id], 'parking', 5)).toHaveLength(2);
        const other = await workspace('other');
        expect(await store.knowledge.deleteSource(other.id, source.id)).toBe(false);
        expect(await store.knowledge.deleteSource(w.id, source.id)).toBe(true);
        expect(await store.knowledge.deleteSource(w.id, source.id)).toBe(false);
        expect(await store.knowledge.getSource(w.id, source.id)).toBeNull();
        expect(await store.knowledge.listChunks(w.id, source.id)).toEqual([]);
        expect((await store.knowledge.search(w.id, [base.id], 'parking', 5)).map((h) => h.sourceId)).toEqual([
          kept?.id,
        ]);
        expect(await store.knowledge.deleteBase(w.id, base.id)).toBe(true);
        expect(await store.knowledge.search(w.id, [base.id], 'parking', 5)).toEqual([]);
        expect(await store.knowledge.listSources(w.id, base.id)).toEqual([]);
      });

      it("never returns another workspace's chunks, and searches only the bases asked for", async () => {
        const w = await workspace();
        const other = await workspace('other');
        const mine = await baseWithSource(w.id);
        const theirs = await baseWithSource(other.id);
        const second = await baseWithSource(w.id, ['Parking costs nothing on Sundays.']);
        const hits = await store.knowledge.search(w.id, [mine.base.id, theirs.base.id], 'parking', 10);
        expect(hits.map((h) => h.sourceId)).toEqual([mine.source.id]);
        expect(await store.knowledge.search(w.id, [theirs.base.id], 'parking', 10)).toEqual([]);
        expect(await store.knowledge.search(other.id, [mine.base.id], 'parking', 10)).toEqual([]);
        const both = await store.knowledge.search(w.id, [mine.base.id, second.base.id], 'parking', 10);
        expect(new Set(both.map((h) => h.knowledgeBaseId))).toEqual(new Set([mine.base.id, second.base.id]));
      });

      it('accepts any query text: operators and SQL are plain words, empty queries find nothing', async () => {
        const w = await workspace();
        const { base } = await baseWithSource(w.id);
        const weird = [
          '"parking',
          'parking"',
          '"unbalanced " quotes "',
          '(parking',
          'parking)',
          '((()))',
          'park*',
          '*',
          'text:parking',
          'parking:*',
          '-parking',
          'NOT parking',
          'parking AND OR NOT NEAR',
          'NEAR(parking whitening)',
          "'; drop table knowledge_chunks; --",
          "parking' or '1'='1",
          '\\ ^ $ { } [ ] | & ! @ # % ~ ` < >',
          'parking & | ! <-> whitening',
          '\u0000parking\u0000',
          'a'.repeat(5000),
          Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '),
        ];
        for (const query of weird) {
          const hits = await store.knowledge.search(w.id, [base.id], query, 3);
          for (const h of hits) expect(faq).toContain(h.text);
          if (/parking/i.test(query)) expect(hits.map((h) => h.text)).toContain(faq[2]);
        }
        for (const query of ['', '   ', '?!', '"" ()', '*:-', '\n\t']) {
          expect(await store.knowledge.search(w.id, [base.id], query, 3)).toEqual([]);
        }
        // The table survived the SQL-looking query.
        expect(
          await store.knowledge.listChunks(w.id, (await store.knowledge.listSources(w.id, base.id))[0]!.id),
        ).toEqual(faq);
      });

      it('rolls a failed source insert back with the surrounding transaction', async () => {
        const w = await workspace();
        const base = await store.knowledge.createBase(w.id, { name: 'faq' });
        const boom = new Error('boom');
        await expect(
          store.transaction(async (repos) => {
            await repos.knowledge.addSource(w.id, base.id, { type: 'text', title: 'FAQ', content: 'x' }, faq);
            throw boom;
          }),
        ).rejects.toBe(boom);
        expect(await store.knowledge.listSources(w.id, base.id)).toEqual([]);
        expect(await store.knowledge.search(w.id, [base.id], 'parking', 3)).toEqual([]);
      });
    });

    describe('agents version', () => {
      it('moves with every change to agents and attachments, and only then', async () => {
        const ws = await workspace();
        const other = await workspace('other');
        const v = () => store.workspaces.agentsVersion(ws.id);
        const seen = [await v()];
        const step = async (change: () => Promise<unknown>) => {
          await change();
          const now = await v();
          expect(now).toBeGreaterThan(seen.at(-1)!);
          seen.push(now);
        };
        const agent = await store.agents.create(ws.id, { type: 'outbound', name: 'a', spec: {} });
        seen.push(await v());
        expect(seen[1]).toBeGreaterThan(seen[0]!);
        const number = await store.phoneNumbers.create(ws.id, { number: '+14155550100', provider: 'sim' });
        // Importing a number changes no agent.
        expect(await v()).toBe(seen.at(-1));
        await step(() => store.agents.update(ws.id, agent.id, { name: 'b', spec: { description: 'x' } }));
        await step(() => store.phoneNumbers.attach(ws.id, agent.id, [number!.id]));
        await step(() => store.phoneNumbers.detach(ws.id, agent.id, number!.id));
        await step(() => store.phoneNumbers.delete(ws.id, number!.slug));
        await step(() => store.agents.delete(ws.id, agent.id));
        // Reads change nothing, and another workspace's version is its own.
        await store.agents.list(ws.id, 10, 0);
        expect(await v()).toBe(seen.at(-1));
        expect(await store.workspaces.agentsVersion(other.id)).toBe(0);
        expect(await store.workspaces.agentsVersion('00000000-0000-4000-8000-000000000000')).toBe(0);
      });

      it('is never read uncommitted by a read issued during another transaction', async () => {
        const ws = await workspace();
        const before = await store.workspaces.agentsVersion(ws.id);
        let during: Promise<number> | undefined;
        await expect(
          store.transaction(async (repos) => {
            await repos.agents.create(ws.id, { type: 'outbound', name: 'a', spec: {} });
            // Issued from outside the transaction (as another request would), not awaited here.
            during = store.workspaces.agentsVersion(ws.id);
            const agents = store.agents.list(ws.id, 10, 0);
            during = Promise.all([during, agents]).then(([v, page]) => {
              expect(page.total).toBe(0);
              return v;
            });
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        expect(await during).toBe(before);
      });

      it('rolls back with the transaction that bumped it', async () => {
        const ws = await workspace();
        const before = await store.workspaces.agentsVersion(ws.id);
        await expect(
          store.transaction(async (repos) => {
            await repos.agents.create(ws.id, { type: 'outbound', name: 'a', spec: {} });
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        expect(await store.workspaces.agentsVersion(ws.id)).toBe(before);
      });
    });

    describe('transactions', () => {
      it('rolls back every write when the function throws', async () => {
        const existing = await workspace('existing');
        const boom = new Error('boom');
        let insideId = '';
        await expect(
          store.transaction(async (repos) => {
            const w = await repos.workspaces.create({
              name: 'doomed',
              plan: 'standard',
              maxConcurrentCalls: 1,
            });
            insideId = w.id;
            // Writes are visible inside the transaction.
            expect(await repos.workspaces.get(w.id)).toEqual(w);
            await repos.apiKeys.create(w.id, 'k', 'pk_doomed_key_0123456789012345678901234567');
            const agent = await repos.agents.create(existing.id, { type: 'voice', name: 'doomed', spec: {} });
            const n = await repos.phoneNumbers.create(existing.id, {
              number: '+14155550171',
              provider: 'twilio',
            });
            await repos.phoneNumbers.attach(existing.id, agent.id, [n?.id ?? '']);
            await repos.workspaces.update(existing.id, { name: 'changed' });
            await repos.workspaces.softDelete(existing.id);
            throw boom;
          }),
        ).rejects.toBe(boom);

        expect(insideId).not.toBe('');
        expect(await store.workspaces.get(insideId)).toBeNull();
        expect(await store.workspaces.listTopLevel()).toEqual([existing]);
        expect(await store.workspaces.get(existing.id)).toEqual(existing);
        expect(await store.apiKeys.count()).toBe(0);
        expect(await store.apiKeys.authenticate('pk_doomed_key_0123456789012345678901234567')).toBeNull();
        expect(await store.agents.list(existing.id, 10, 0)).toEqual({ items: [], total: 0 });
        expect(await store.phoneNumbers.list(existing.id, 10, 0)).toEqual({ items: [], total: 0 });
      });

      it('rolls back when a statement fails', async () => {
        const w = await workspace();
        await store.apiKeys.create(w.id, 'k', 'pk_taken_0123456789012345678901234567890');
        await expect(
          store.transaction(async (repos) => {
            await repos.agents.create(w.id, { type: 'voice', name: 'doomed', spec: {} });
            await repos.apiKeys.create(w.id, 'dup', 'pk_taken_0123456789012345678901234567890');
          }),
        ).rejects.toThrow();
        expect(await store.agents.list(w.id, 10, 0)).toEqual({ items: [], total: 0 });
        expect(await store.apiKeys.count()).toBe(1);
        // The store is still usable afterwards.
        expect((await store.agents.create(w.id, { type: 'voice', name: 'ok', spec: {} })).name).toBe('ok');
      });

      it('commits and returns the function’s value', async () => {
        const result = await store.transaction(async (repos) => {
          const w = await repos.workspaces.create({
            name: 'kept',
            plan: 'enterprise',
            maxConcurrentCalls: 2,
          });
          const key = await repos.apiKeys.create(w.id, 'k');
          return { w, secret: key.secret };
        });
        expect(await store.workspaces.get(result.w.id)).toEqual(result.w);
        expect((await store.apiKeys.authenticate(result.secret))?.workspace.id).toBe(result.w.id);
      });

      it('rolls back exclusively() when the function throws', async () => {
        await expect(
          store.exclusively('contract_test', async (repos) => {
            await repos.workspaces.create({ name: 'doomed', plan: 'standard', maxConcurrentCalls: 1 });
            throw new Error('nope');
          }),
        ).rejects.toThrow('nope');
        expect(await store.workspaces.listTopLevel()).toEqual([]);
      });

      it('keeps concurrent transactions apart', async () => {
        const failing = store.transaction(async (repos) => {
          await repos.workspaces.create({ name: 'doomed', plan: 'standard', maxConcurrentCalls: 1 });
          throw new Error('rollback');
        });
        const succeeding = store.transaction((repos) =>
          repos.workspaces.create({ name: 'kept', plan: 'standard', maxConcurrentCalls: 1 }),
        );
        const [failed, kept] = await Promise.allSettled([failing, succeeding]);
        expect(failed.status).toBe('rejected');
        expect(kept.status).toBe('fulfilled');
        expect((await store.workspaces.listTopLevel()).map((w) => w.name)).toEqual(['kept']);
      });
    });

    describe('bootstrap', () => {
      const KEY = 'pk_bootstrap_0123456789012345678901234567890';

      it('creates the default workspace for a new bootstrap key, then leaves it alone', async () => {
        const result = await bootstrapWorkspace(store, KEY);
        expect(result).toEqual({
          kind: 'created',
          workspaceId: expect.any(String),
          secret: KEY,
          generated: false,
        });
        if (result.kind !== 'created') throw new Error('not created');
        const w = await store.workspaces.get(result.workspaceId);
        expect(w).toMatchObject({
          name: 'default',
          plan: 'enterprise',
          maxConcurrentCalls: DEFAULT_MAX_CONCURRENT_CALLS,
          parentId: null,
        });
        const auth = await store.apiKeys.authenticate(KEY);
        expect(auth?.workspace).toEqual(w);
        expect(auth?.apiKey.name).toBe('bootstrap');

        expect(await bootstrapWorkspace(store, KEY)).toEqual({ kind: 'unchanged' });
        expect(await store.workspaces.listTopLevel()).toEqual([w]);
        expect(await store.apiKeys.count()).toBe(1);
      });

      it('creates a workspace for a new bootstrap key even when other keys exist', async () => {
        const w = await workspace();
        await store.apiKeys.create(w.id, 'existing');
        const result = await bootstrapWorkspace(store, KEY);
        expect(result.kind).toBe('created');
        expect((await store.apiKeys.authenticate(KEY))?.workspace.name).toBe('default');
        expect((await store.workspaces.listTopLevel()).map((x) => x.name)).toEqual(['acme', 'default']);
      });

      it('generates a key when there is no bootstrap key and no key at all', async () => {
        const result = await bootstrapWorkspace(store, undefined);
        if (result.kind !== 'created') throw new Error('not created');
        expect(result.generated).toBe(true);
        expect(result.secret).toMatch(API_KEY);
        const auth = await store.apiKeys.authenticate(result.secret);
        expect(auth?.workspace).toMatchObject({
          id: result.workspaceId,
          name: 'default',
          plan: 'enterprise',
        });

        expect(await bootstrapWorkspace(store, undefined)).toEqual({ kind: 'unchanged' });
        expect(await store.apiKeys.count()).toBe(1);
        expect(await store.workspaces.listTopLevel()).toHaveLength(1);
      });

      it('does nothing without a bootstrap key when keys exist', async () => {
        const w = await workspace();
        await store.apiKeys.create(w.id, 'existing');
        expect(await bootstrapWorkspace(store, undefined)).toEqual({ kind: 'unchanged' });
        expect(await store.workspaces.listTopLevel()).toEqual([w]);
        expect(await store.apiKeys.count()).toBe(1);
      });

      it('creates exactly one default workspace under concurrent calls with a key', async () => {
        const results = await Promise.all([
          bootstrapWorkspace(store, KEY),
          bootstrapWorkspace(store, KEY),
          bootstrapWorkspace(store, KEY),
        ]);
        expect(results.filter((r) => r.kind === 'created')).toHaveLength(1);
        expect(results.filter((r) => r.kind === 'unchanged')).toHaveLength(2);
        const top = await store.workspaces.listTopLevel();
        expect(top.map((w) => w.name)).toEqual(['default']);
        expect(await store.apiKeys.count()).toBe(1);
        expect((await store.apiKeys.authenticate(KEY))?.workspace.id).toBe(top[0]?.id);
      });

      it('creates exactly one default workspace under concurrent calls without a key', async () => {
        const results = await Promise.all([
          bootstrapWorkspace(store, undefined),
          bootstrapWorkspace(store, undefined),
        ]);
        expect(results.filter((r) => r.kind === 'created')).toHaveLength(1);
        expect(await store.workspaces.listTopLevel()).toHaveLength(1);
        expect(await store.apiKeys.count()).toBe(1);
      });

      it('creates exactly one default workspace when several processes start together', async () => {
        const raw = rawDatabase(target.dialect);
        const local = await raw.open(clock);
        const processes: Awaited<ReturnType<typeof bootstrapProcess>>[] = [];
        try {
          await local.migrate();
          processes.push(
            ...(await Promise.all([bootstrapProcess(raw.options, KEY), bootstrapProcess(raw.options, KEY)])),
          );
          const results = await Promise.all([
            ...processes.map((p) => p.go()),
            bootstrapWorkspace(local, KEY),
          ]);
          expect(results.filter((r) => r.kind === 'created')).toHaveLength(1);
          expect(results.filter((r) => r.kind === 'unchanged')).toHaveLength(2);
          const top = await local.workspaces.listTopLevel();
          expect(top.map((w) => w.name)).toEqual(['default']);
          expect(await local.apiKeys.count()).toBe(1);
          expect((await local.apiKeys.authenticate(KEY))?.workspace.id).toBe(top[0]?.id);
        } finally {
          for (const p of processes) p.kill();
          await local.close();
          await raw.cleanup();
        }
        // Each child process loads the store through tsx, which takes a second or two.
      }, 60_000);

      it('creates exactly one default workspace when two stores in one process share a database', async () => {
        const raw = rawDatabase(target.dialect);
        const first = await raw.open(clock);
        const second = await raw.open(clock);
        try {
          await first.migrate();
          // Sequential across the two stores (see bootstrapInChildProcess), concurrent within each.
          const fromFirst = await Promise.all([
            bootstrapWorkspace(first, KEY),
            bootstrapWorkspace(first, KEY),
          ]);
          const fromSecond = await Promise.all([
            bootstrapWorkspace(second, KEY),
            bootstrapWorkspace(second, undefined),
          ]);
          expect([...fromFirst, ...fromSecond].filter((r) => r.kind === 'created')).toHaveLength(1);
          expect(fromSecond).toEqual([{ kind: 'unchanged' }, { kind: 'unchanged' }]);
          expect((await second.workspaces.listTopLevel()).map((w) => w.name)).toEqual(['default']);
        } finally {
          await first.close();
          await second.close();
          await raw.cleanup();
        }
      });
    });
  });
}
