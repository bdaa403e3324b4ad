import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import {
  ISO,
  MISSING_ID,
  UUID,
  expectErrorBody,
  expectFieldError,
  expectNotFound,
  type Json,
  type Loc,
  type Payload,
} from '../assertions.ts';

// Contacts through the HTTP layer, once per dialect: the record, E.164 numbers, checked emails,
// metadata merged on update, page lists with search, and workspace scoping (another workspace's
// contact is a 404 like a missing one).

forEachStore('contacts API', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let line = 3000;

  beforeAll(async () => {
    clock = createManualClock(Date.UTC(2026, 4, 2, 8));
    t = await createTestApi(target, { clock });
  });
  afterAll(() => t.close());

  /** A fresh US number: E.164 and a spaced, punctuated spelling of it. */
  function fresh() {
    line += 1;
    return { e164: `+1628555${line}`, written: `+1 (628) 555-${line}` };
  }

  const create = (payload: Payload, key?: string) =>
    t.call({ method: 'POST', url: '/v2/contacts', payload, key });
  const get = (id: string, key?: string) => t.call({ method: 'GET', url: `/v2/contacts/${id}`, key });
  const patch = (id: string, payload: Payload, key?: string) =>
    t.call({ method: 'PATCH', url: `/v2/contacts/${id}`, payload, key });
  const remove = (id: string, key?: string) => t.call({ method: 'DELETE', url: `/v2/contacts/${id}`, key });
  const list = (query: string, key?: string) => t.call({ method: 'GET', url: `/v2/contacts${query}`, key });

  async function created(payload: Json = {}, key?: string): Promise<Json> {
    const res = await create({ name: 'Grace Hopper', phone_number: fresh().e164, ...payload }, key);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response as Json;
  }

  describe('POST /v2/contacts', () => {
    it('creates a contact and answers its record, the number in E.164', async () => {
      const n = fresh();
      const at = new Date(clock.now()).toISOString();
      const res = await create({
        name: 'Ada Lovelace',
        phone_number: n.written,
        email: 'ada@example.com',
        contact_metadata: { company: 'Analytical Engines', deals: [1, 2], vip: true },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        status: 'ok',
        response: {
          id: expect.stringMatching(UUID),
          name: 'Ada Lovelace',
          phone_number: n.e164,
          email: 'ada@example.com',
          contact_metadata: { company: 'Analytical Engines', deals: [1, 2], vip: true },
          workspace_id: t.ws.id,
          created_at: at,
          updated_at: at,
          memory_store_ids: [],
        },
      });
      const read = await get(res.json().response.id);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(res.json());
    });

    it('answers an empty email and empty metadata when none were given', async () => {
      const c = await created({ email: '' });
      expect(c).toMatchObject({ email: '', contact_metadata: {} });
      const bare = await created();
      expect(bare).toMatchObject({ email: '', contact_metadata: {} });
    });

    it.each<[string, Json, Loc]>([
      ['no name', { phone_number: '+16285550000' }, ['body', 'name']],
      ['an empty name', { name: '', phone_number: '+16285550000' }, ['body', 'name']],
      ['a blank name', { name: '   ', phone_number: '+16285550000' }, ['body', 'name']],
      ['a name that is not text', { name: 7, phone_number: '+16285550000' }, ['body', 'name']],
      ['no number', { name: 'A' }, ['body', 'phone_number']],
      ['a number without a country code', { name: 'A', phone_number: '555-0100' }, ['body', 'phone_number']],
      ['a number with letters', { name: 'A', phone_number: '+1 628 CALL NOW' }, ['body', 'phone_number']],
      ['a malformed email', { name: 'A', phone_number: '+16285550000', email: 'ada@' }, ['body', 'email']],
      [
        'an email with spaces',
        { name: 'A', phone_number: '+16285550000', email: 'a b@c.io' },
        ['body', 'email'],
      ],
      ['an email that is not text', { name: 'A', phone_number: '+16285550000', email: 5 }, ['body', 'email']],
      [
        'metadata that is not an object',
        { name: 'A', phone_number: '+16285550000', contact_metadata: ['x'] },
        ['body', 'contact_metadata'],
      ],
    ])('refuses %s with a 400 naming the field', async (_label, payload, loc) => {
      const before = (await list('?page_size=100')).json().response.total as number;
      expectFieldError(await create(payload), loc);
      expect((await list('?page_size=100')).json().response.total).toBe(before);
    });

    it('needs a key', async () => {
      expectErrorBody(await create({ name: 'A', phone_number: '+16285550000' }, null as never), 401, 'auth');
    });
  });

  describe('GET /v2/contacts/{contact_id}', () => {
    it('is a 404 for an unknown id and for another workspace’s contact', async () => {
      expectNotFound(await get(MISSING_ID));
      expectNotFound(await get('not-even-a-uuid'));
      const theirs = await created({}, t.other.key);
      expectNotFound(await get(theirs.id as string));
      expect((await get(theirs.id as string, t.other.key)).statusCode).toBe(200);
    });
  });

  describe('PATCH /v2/contacts/{contact_id}', () => {
    it('changes the fields given, merges metadata key by key, and moves updated_at', async () => {
      const c = await created({
        email: 'g@navy.mil',
        contact_metadata: { company: 'Navy', rank: 'RADM', ship: 'x' },
      });
      clock.advance(60_000);
      const n = fresh();
      const res = await patch(c.id as string, {
        phone_number: n.written,
        contact_metadata: { rank: 'Rear Admiral', ship: null, city: 'Arlington' },
      });
      expect(res.statusCode, res.body).toBe(200);
      const expected = {
        ...c,
        phone_number: n.e164,
        contact_metadata: { company: 'Navy', rank: 'Rear Admiral', city: 'Arlington' },
        updated_at: new Date(clock.now()).toISOString(),
      };
      expect(res.json()).toEqual({ status: 'ok', response: expected });
      expect((await get(c.id as string)).json().response).toEqual(expected);
    });

    it('removes the email with an empty string or null', async () => {
      const a = await created({ email: 'a@b.co' });
      expect((await patch(a.id as string, { email: '' })).json().response.email).toBe('');
      const b = await created({ email: 'a@b.co' });
      expect((await patch(b.id as string, { email: null })).json().response.email).toBe('');
      expect((await patch(b.id as string, { email: 'new@b.co' })).json().response.email).toBe('new@b.co');
    });

    it('keeps everything on an empty object', async () => {
      const c = await created({ contact_metadata: { k: 1 } });
      clock.advance(1000);
      const res = await patch(c.id as string, {});
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toEqual(c);
    });

    it.each<[string, Json, Loc]>([
      ['a bad number', { phone_number: '12' }, ['body', 'phone_number']],
      ['a bad email', { email: 'nope' }, ['body', 'email']],
      ['a blank name', { name: ' ' }, ['body', 'name']],
      ['a null name', { name: null }, ['body', 'name']],
      ['metadata that is not an object', { contact_metadata: 'x' }, ['body', 'contact_metadata']],
    ])('refuses %s with a 400 naming the field and changes nothing', async (_label, payload, loc) => {
      const c = await created();
      expectFieldError(await patch(c.id as string, payload), loc);
      expect((await get(c.id as string)).json().response).toEqual(c);
    });

    it('is a 404 for an unknown id and for another workspace’s contact, which stays as it was', async () => {
      expectNotFound(await patch(MISSING_ID, { name: 'X' }));
      const theirs = await created({ name: 'Theirs' }, t.other.key);
      expectNotFound(await patch(theirs.id as string, { name: 'Mine now' }));
      expect((await get(theirs.id as string, t.other.key)).json().response.name).toBe('Theirs');
    });
  });

  describe('DELETE /v2/contacts/{contact_id}', () => {
    it('deletes once; then the contact is gone', async () => {
      const c = await created();
      const res = await remove(c.id as string);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', response: { id: c.id } });
      expectNotFound(await get(c.id as string));
      expectNotFound(await remove(c.id as string));
    });

    it('is a 404 for another workspace’s contact, which stays', async () => {
      const theirs = await created({}, t.other.key);
      expectNotFound(await remove(theirs.id as string));
      expect((await get(theirs.id as string, t.other.key)).statusCode).toBe(200);
    });
  });

  describe('GET /v2/contacts', () => {
    let key: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      // A workspace of its own, so that the counts are exact.
      const ws = await t.store.workspaces.create({ name: 'book', plan: 'enterprise', maxConcurrentCalls: 1 });
      key = (await t.store.apiKeys.create(ws.id, 'k')).secret;
      for (const [name, phone] of [
        ['Alan Turing', '+442079460001'],
        ['Émilie du Châtelet', '+33142685300'],
        ['Katherine Johnson', '+17575550123'],
        ['Kurt Gödel', '+43150100123'],
      ] as const) {
        clock.advance(1);
        const res = await create({ name, phone_number: phone }, key);
        ids[name] = res.json().response.id as string;
      }
    });

    const names = async (query: string) => {
      const res = await list(query, key);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().response.items as Json[]).map((c) => c.name);
    };

    it('lists newest first in pages of 10 by default', async () => {
      const res = await list('', key);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json().response;
      expect(body).toMatchObject({ total: 4, page_number: 1, page_size: 10 });
      expect(body.items.map((c: Json) => c.name)).toEqual([
        'Kurt Gödel',
        'Katherine Johnson',
        'Émilie du Châtelet',
        'Alan Turing',
      ]);
      expect(body.items[0]).toMatchObject({ id: ids['Kurt Gödel'], created_at: expect.stringMatching(ISO) });
    });

    it('pages with page_number and page_size; a page past the end is empty with the real total', async () => {
      expect(await names('?page_size=3&page_number=2')).toEqual(['Alan Turing']);
      const past = (await list('?page_size=3&page_number=3', key)).json().response;
      expect(past).toEqual({ items: [], total: 4, page_number: 3, page_size: 3 });
    });

    it.each([
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['page_number=0', 'page_number'],
      ['page_number=x', 'page_number'],
    ])('refuses %s with a 400 naming it', async (query, field) => {
      expectFieldError(await list(`?${query}`, key), ['query', field]);
    });

    it.each([
      ['a whole number, URL-encoded', '%2B1%20757%20555%200123', ['Katherine Johnson']],
      ['a whole number whose + became a space', '+17575550123', ['Katherine Johnson']],
      ['part of a number', '0123', ['Kurt Gödel', 'Katherine Johnson']],
      ['a country prefix with its plus', '%2B44', ['Alan Turing']],
      ['a name, whatever the case', 'KURT', ['Kurt Gödel']],
      ['part of a name with accents', 'châtelet', ['Émilie du Châtelet']],
      ['something nobody matches', 'zzz', []],
    ])('searches by %s', async (_label, search, expected) => {
      expect(await names(`?search=${search}`)).toEqual(expected);
    });

    it('answers the search total, not the workspace total', async () => {
      const res = (await list('?search=0123&page_size=1', key)).json().response;
      expect(res).toMatchObject({ total: 2, page_size: 1 });
      expect(res.items).toHaveLength(1);
    });

    it('never shows another workspace’s contacts', async () => {
      const res = (await list('?page_size=100', key)).json().response;
      expect(res.items.every((c: Json) => Object.values(ids).includes(c.id as string))).toBe(true);
    });
  });
});
