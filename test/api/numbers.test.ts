import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { agentBody, createTestApi, createWorkspace, forEachStore, type TestApi } from '../helpers.ts';
import {
  expectErrorBody,
  expectFieldError,
  expectNotFound,
  ISO,
  type Json,
  type Loc,
  MISSING_ID,
  type Payload,
  UUID,
} from '../assertions.ts';

// The workspace's phone number inventory (WIRE.md section 3) through the HTTP layer, once per
// dialect.

forEachStore('phone numbers API', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let seq = 0;

  beforeAll(async () => {
    clock = createManualClock(Date.UTC(2026, 5, 1, 9));
    t = await createTestApi(target, { clock });
  });
  afterAll(() => t.close());

  /** A fresh, unused US number. */
  function fresh() {
    seq += 1;
    const line = String(2000 + seq);
    return { e164: `+1628555${line}`, slug: `1628555${line}`, spaced: `+1 628 555 ${line}` };
  }

  const importNumber = (payload: Payload, key?: string) =>
    t.call({ method: 'POST', url: '/v2/custom-numbers', payload, key });
  const getNumber = (slug: string, key?: string) =>
    t.call({ method: 'GET', url: `/v2/numbers/${slug}`, key });
  const deleteNumber = (slug: string, key?: string) =>
    t.call({ method: 'DELETE', url: `/v2/numbers/${slug}`, key });

  /**
   * A number's record as every read shows it: Parley's fields, then the published ones
   * (docs/api-notes.md, "Phone numbers"); defaults are those of a fresh, unattached sim number.
   */
  function record(e164: string, at: string, overrides: Json = {}): Json {
    return {
      phone_number: e164,
      slug: e164.slice(1),
      sid: expect.stringMatching(UUID),
      provider: 'sim',
      sip: null,
      attached_agents: [],
      created_at: at,
      updated_at: at,
      number: e164,
      assistants: [],
      is_available: true,
      friendly_name: '',
      provider_name: 'sim',
      sip_term_uri: '',
      sip_outbound_proxy: null,
      sip_auth_username: null,
      sip_registration: null,
      uac_enabled: false,
      uac_register_expires: null,
      is_voice_capable: true,
      is_sms_capable: true,
      iso_country: 'US',
      locality: '',
      region: '',
      address_requirement: '',
      workspace_id: t.ws.id,
      agency_workspace_id: null,
      ...overrides,
    };
  }

  /** The record an import answered, without the import-only `key`. */
  function withoutKey(response: Json): Json {
    const { key, ...rest } = response;
    expect(key).toBe(rest.sid);
    return rest;
  }

  async function createAgent(key?: string): Promise<string> {
    const res = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody(), key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response.model_id as string;
  }

  async function attach(agentId: string, e164: string, key?: string): Promise<void> {
    const res = await t.call({
      method: 'PUT',
      url: `/v2/assistants/${agentId}/phone_numbers`,
      payload: { phone_numbers: [e164] },
      key,
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  describe('POST /v2/custom-numbers', () => {
    it('imports a number and answers the number record', async () => {
      const n = fresh();
      const now = clock.now();
      const res = await importNumber({ phone_number: n.e164, provider: 'sim' });
      expect(res.statusCode, res.body).toBe(200);
      const at = new Date(now).toISOString();
      expect(res.json()).toEqual({
        status: 'ok',
        response: { ...record(n.e164, at), key: expect.stringMatching(UUID) },
      });
      const read = await getNumber(n.slug);
      expect(read.statusCode).toBe(200);
      expect(read.json().response).toEqual(withoutKey(res.json().response));
    });

    it.each(['sim', 'twilio', 'telnyx', 'custom'])('accepts provider %s without sip', async (provider) => {
      const n = fresh();
      const res = await importNumber({ phone_number: n.e164, provider });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toMatchObject({ provider, sip: null });
    });

    it.each<[string, (n: ReturnType<typeof fresh>) => string]>([
      ['spaces', (n) => n.spaced],
      ['no plus', (n) => n.slug],
      ['punctuation', (n) => `+1 (${n.slug.slice(1, 4)}) ${n.slug.slice(4, 7)}-${n.slug.slice(7)}`],
      ['dots', (n) => `1.${n.slug.slice(1, 4)}.${n.slug.slice(4, 7)}.${n.slug.slice(7)}`],
      ['surrounding blanks', (n) => `  ${n.e164} `],
    ])('normalizes a number written with %s to E.164', async (_label, write) => {
      const n = fresh();
      const res = await importNumber({ phone_number: write(n), provider: 'sim' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toMatchObject({ phone_number: n.e164, slug: n.slug });
    });

    it('normalizes a non-US number', async () => {
      const res = await importNumber({ phone_number: '+44 20 7946 0958', provider: 'twilio' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toMatchObject({ phone_number: '+442079460958', slug: '442079460958' });
    });

    it('stores sip settings, never returning the password', async () => {
      const n = fresh();
      const res = await importNumber({
        phone_number: n.e164,
        provider: 'sip',
        sip: {
          host: 'sip.example.com',
          port: 5061,
          transport: 'tls',
          username: 'trunk-user',
          password: 's3cret-pa55',
          uac_register_expires: 600,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      const expectedSip = {
        host: 'sip.example.com',
        port: 5061,
        transport: 'tls',
        username: 'trunk-user',
        has_password: true,
        uac_register_expires: 600,
        allowed_addresses: [],
        inbound_username: null,
        has_inbound_password: false,
      };
      expect(res.json().response.sip).toEqual(expectedSip);
      expect(res.body).not.toContain('s3cret-pa55');
      expect(res.body).not.toContain('"password"');
      const read = await getNumber(n.slug);
      expect(read.json().response.sip).toEqual(expectedSip);
      expect(read.body).not.toContain('s3cret-pa55');
      const list = await t.call({ method: 'GET', url: '/v2/numbers?limit=1000' });
      expect(list.body).not.toContain('s3cret-pa55');
      expect(list.body).not.toContain('"password"');
    });

    it('applies the sip defaults', async () => {
      const n = fresh();
      const res = await importNumber({ phone_number: n.e164, provider: 'sip', sip: { host: '10.0.0.5' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response.sip).toEqual({
        host: '10.0.0.5',
        port: 5060,
        transport: 'udp',
        username: null,
        has_password: false,
        uac_register_expires: 300,
        allowed_addresses: [],
        inbound_username: null,
        has_inbound_password: false,
      });
    });

    it('stores who may call in, never returning the inbound password', async () => {
      const n = fresh();
      const res = await importNumber({
        phone_number: n.e164,
        provider: 'sip',
        sip: {
          host: 'trunk.example.com',
          allowed_addresses: ['198.51.100.7', '203.0.113.0/24', '2001:db8::/32'],
          inbound_username: 'pbx',
          inbound_password: 'in-s3cret',
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response.sip).toMatchObject({
        allowed_addresses: ['198.51.100.7', '203.0.113.0/24', '2001:db8::/32'],
        inbound_username: 'pbx',
        has_inbound_password: true,
      });
      expect(res.body).not.toContain('in-s3cret');
      expect((await getNumber(n.slug)).body).not.toContain('in-s3cret');
      const flat = await importNumber({
        phone_number: fresh().e164,
        termination_uri: 'trunk.example.com',
        sip_allowed_addresses: ['192.0.2.1'],
      });
      expect(flat.statusCode, flat.body).toBe(200);
      expect(flat.json().response.sip.allowed_addresses).toEqual(['192.0.2.1']);
    });

    it.each([
      [
        { provider: 'sip', sip: { host: 'h', allowed_addresses: ['10.0.0.1', 'nope'] } },
        ['body', 'sip', 'allowed_addresses', 1],
      ],
      [
        { provider: 'sip', sip: { host: 'h', allowed_addresses: ['10.0.0.0/33'] } },
        ['body', 'sip', 'allowed_addresses', 0],
      ],
      [
        { termination_uri: 'h', sip_allowed_addresses: ['1.2.3.4/8/9'] },
        ['body', 'sip_allowed_addresses', 0],
      ],
    ])('refuses an allow-list entry that is no address or range (%j)', async (body, loc) => {
      const res = await importNumber({ phone_number: fresh().e164, ...body });
      expect(res.statusCode, res.body).toBe(400);
      expect(JSON.stringify(res.json())).toContain(JSON.stringify(loc));
    });

    it('reports has_password false for an empty password', async () => {
      const n = fresh();
      const res = await importNumber({
        phone_number: n.e164,
        provider: 'sip',
        sip: { host: 'h', username: 'u', password: '' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response.sip).toMatchObject({ username: 'u', has_password: false });
    });

    it.each([60, 3600])('accepts uac_register_expires %i', async (expires) => {
      const n = fresh();
      const res = await importNumber({
        phone_number: n.e164,
        provider: 'sip',
        sip: { host: 'h', uac_register_expires: expires },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response.sip.uac_register_expires).toBe(expires);
    });

    it.each<[string, unknown]>([
      ['59', 59],
      ['3601', 3601],
      ['a fraction', 300.5],
      ['a string', '300'],
    ])('refuses uac_register_expires %s', async (_label, expires) => {
      const n = fresh();
      const res = await importNumber({
        phone_number: n.e164,
        provider: 'sip',
        sip: { host: 'h', uac_register_expires: expires },
      });
      expectFieldError(res, ['body', 'sip', 'uac_register_expires']);
      expect((await getNumber(n.slug)).statusCode).toBe(404);
    });

    it.each<[string, Json, Loc]>([
      ['no host', { port: 5060 }, ['body', 'sip', 'host']],
      ['an empty host', { host: '' }, ['body', 'sip', 'host']],
      ['port 0', { host: 'h', port: 0 }, ['body', 'sip', 'port']],
      ['port 65536', { host: 'h', port: 65_536 }, ['body', 'sip', 'port']],
      ['an unknown transport', { host: 'h', transport: 'sctp' }, ['body', 'sip', 'transport']],
    ])('refuses sip settings with %s', async (_label, sip, loc) => {
      expectFieldError(await importNumber({ phone_number: fresh().e164, provider: 'sip', sip }), loc);
    });

    it('requires sip for provider sip', async () => {
      const n = fresh();
      const d = expectFieldError(await importNumber({ phone_number: n.e164, provider: 'sip' }), [
        'body',
        'sip',
      ]);
      expect(d.description).toContain('required');
      expect((await getNumber(n.slug)).statusCode).toBe(404);
    });

    it.each(['sim', 'twilio', 'telnyx', 'custom'])('refuses sip for provider %s', async (provider) => {
      const n = fresh();
      expectFieldError(await importNumber({ phone_number: n.e164, provider, sip: { host: 'h' } }), [
        'body',
        'sip',
      ]);
      expect((await getNumber(n.slug)).statusCode).toBe(404);
    });

    it('requires provider', async () => {
      expectFieldError(await importNumber({ phone_number: fresh().e164 }), ['body', 'provider']);
    });

    it.each(['vonage', 'SIM', '', 'Twilio'])('refuses provider %j, listing the allowed values', async (p) => {
      const d = expectFieldError(await importNumber({ phone_number: fresh().e164, provider: p }), [
        'body',
        'provider',
      ]);
      for (const v of ['sim', 'sip', 'twilio', 'telnyx', 'custom']) expect(d.description).toContain(v);
    });

    it('requires phone_number', async () => {
      expectFieldError(await importNumber({ provider: 'sim' }), ['body', 'phone_number']);
    });

    it('names every missing field at once', async () => {
      const d = expectErrorBody(await importNumber({}), 400, 'validation');
      const locs = (d.errors as { loc: Loc }[]).map((e) => e.loc);
      expect(locs).toContainEqual(['body', 'phone_number']);
      expect(locs).toContainEqual(['body', 'provider']);
    });

    it.each<[string, unknown]>([
      ['letters', 'call me'],
      ['too short', '+1 628'],
      ['no such country', '+999 123 4567'],
      ['empty', ''],
      ['a number type', 16285550000],
      ['too long', `+1${'2'.repeat(40)}`],
    ])('refuses a phone_number that is %s', async (_label, value) => {
      expectFieldError(await importNumber({ phone_number: value, provider: 'sim' }), [
        'body',
        'phone_number',
      ]);
    });

    it('refuses a duplicate with category conflict, whatever its formatting', async () => {
      const n = fresh();
      const first = await importNumber({ phone_number: n.e164, provider: 'sim' });
      expect(first.statusCode).toBe(200);
      for (const again of [n.e164, n.spaced, n.slug]) {
        const res = await importNumber({ phone_number: again, provider: 'twilio' });
        const d = expectErrorBody(res, 400, 'conflict');
        expect(d.description).toContain('body.phone_number');
        expect((d.errors as { loc: Loc }[]).map((e) => e.loc)).toContainEqual(['body', 'phone_number']);
      }
      // The first import is untouched.
      const read = await getNumber(n.slug);
      expect(read.json().response).toMatchObject({ provider: 'sim', sid: first.json().response.sid });
    });

    it('ignores unknown top-level fields', async () => {
      const n = fresh();
      const res = await importNumber({ phone_number: n.e164, provider: 'sim', label: 'main line' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).not.toHaveProperty('label');
    });
  });

  describe('GET /v2/numbers', () => {
    let key: string;
    let workspaceId: string;
    const slugs: string[] = [];

    beforeAll(async () => {
      ({ key, id: workspaceId } = await createWorkspace(t.store, 'inventory'));
      for (let i = 0; i < 5; i += 1) {
        const n = fresh();
        slugs.push(n.slug);
        expect((await importNumber({ phone_number: n.e164, provider: 'sim' }, key)).statusCode).toBe(200);
        clock.advance(1_000);
      }
    });

    const list = (query = '', path = '/v2/numbers') => t.call({ method: 'GET', url: `${path}${query}`, key });
    const newestFirst = () => [...slugs].reverse();

    it('lists newest first with a default limit of 20', async () => {
      const res = await list();
      expect(res.statusCode).toBe(200);
      const { pagination, numbers, phone_numbers } = res.json().response;
      expect(Object.keys(res.json().response).sort()).toEqual(['numbers', 'pagination', 'phone_numbers']);
      expect(pagination).toEqual({ total_records: 5, limit: 20, offset: 0 });
      expect(numbers.map((n: Json) => n.slug)).toEqual(newestFirst());
      for (const n of numbers as Json[]) {
        expect(n).toEqual(
          record(`+${String(n.slug)}`, expect.stringMatching(ISO), {
            updated_at: n.created_at,
            workspace_id: workspaceId,
          }),
        );
      }
      // The published name holds the same items.
      expect(phone_numbers).toEqual(numbers);
    });

    it('pages with limit and offset and echoes them', async () => {
      const first = (await list('?limit=2')).json().response;
      expect(first.pagination).toEqual({ total_records: 5, limit: 2, offset: 0 });
      expect(first.numbers.map((n: Json) => n.slug)).toEqual(newestFirst().slice(0, 2));
      const second = (await list('?limit=2&offset=2')).json().response;
      expect(second.numbers.map((n: Json) => n.slug)).toEqual(newestFirst().slice(2, 4));
      const last = (await list('?limit=2&offset=4')).json().response;
      expect(last.pagination).toEqual({ total_records: 5, limit: 2, offset: 4 });
      expect(last.numbers.map((n: Json) => n.slug)).toEqual(newestFirst().slice(4));
    });

    it.each([5, 6, 2_147_483_647])(
      'answers an empty page at offset %i with the real total',
      async (offset) => {
        const res = await list(`?offset=${offset}`);
        expect(res.statusCode).toBe(200);
        expect(res.json().response).toEqual({
          pagination: { total_records: 5, limit: 20, offset },
          numbers: [],
          phone_numbers: [],
        });
      },
    );

    it('accepts limit 1 and 1000', async () => {
      expect((await list('?limit=1')).json().response.numbers.map((n: Json) => n.slug)).toEqual([
        newestFirst()[0],
      ]);
      expect((await list('?limit=1000')).json().response.numbers).toHaveLength(5);
    });

    it('works with a trailing slash', async () => {
      const a = await list('?limit=3', '/v2/numbers/');
      expect(a.statusCode).toBe(200);
      expect(a.json().response).toEqual((await list('?limit=3')).json().response);
    });

    it.each<[string, string]>([
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?offset=-1', 'offset'],
      ['?offset=x', 'offset'],
      ['?offset=2147483648', 'offset'],
    ])('refuses %s naming %s', async (query, field) => {
      expectFieldError(await list(query), ['query', field]);
    });

    it('shows attached agents in list items', async () => {
      const agent = await createAgent(key);
      await attach(agent, `+${slugs[0]!}`, key);
      const items = (await list('?limit=1000')).json().response.numbers as Json[];
      expect(items.find((n) => n.slug === slugs[0])!.attached_agents).toEqual([agent]);
      expect(
        items.filter((n) => n.slug !== slugs[0]).every((n) => (n.attached_agents as []).length === 0),
      ).toBe(true);
    });
  });

  describe('GET /v2/numbers/{slug}', () => {
    it('finds a number by slug and by its URL-encoded plus', async () => {
      const n = fresh();
      const created = withoutKey(
        (await importNumber({ phone_number: n.e164, provider: 'telnyx' })).json().response,
      );
      expect(created).toMatchObject({ provider: 'telnyx', provider_name: 'telnyx', is_sms_capable: false });
      const bySlug = await getNumber(n.slug);
      expect(bySlug.statusCode).toBe(200);
      expect(bySlug.json().response).toEqual(created);
      const byPlus = await getNumber(`%2B${n.slug}`);
      expect(byPlus.statusCode, byPlus.body).toBe(200);
      expect(byPlus.json()).toEqual(bySlug.json());
      const rawPlus = await getNumber(`+${n.slug}`);
      expect(rawPlus.statusCode, rawPlus.body).toBe(200);
      expect(rawPlus.json()).toEqual(bySlug.json());
    });

    it.each(['16280000000', 'nope', '%2B16280000000'])('answers 404 for unknown %s', async (slug) => {
      expectNotFound(await getNumber(slug));
    });

    it('lists the model_ids of the agents it is attached to, in attach order', async () => {
      const n = fresh();
      expect((await importNumber({ phone_number: n.e164, provider: 'sim' })).statusCode).toBe(200);
      const first = await createAgent();
      const second = await createAgent();
      await createAgent(); // not attached
      await attach(first, n.e164);
      clock.advance(1_000);
      await attach(second, n.spaced);
      await attach(first, n.e164); // idempotent
      const res = await getNumber(n.slug);
      expect(res.json().response.attached_agents).toEqual([first, second]);

      const detached = await t.call({
        method: 'DELETE',
        url: `/v2/assistants/${first}/phone_numbers/${n.slug}`,
      });
      expect(detached.statusCode).toBe(200);
      expect((await getNumber(n.slug)).json().response.attached_agents).toEqual([second]);
    });
  });

  describe('DELETE /v2/numbers/{slug}', () => {
    it('deletes a number and detaches it from every agent', async () => {
      const n = fresh();
      const keep = fresh();
      expect((await importNumber({ phone_number: n.e164, provider: 'sim' })).statusCode).toBe(200);
      const keepSid = (await importNumber({ phone_number: keep.e164, provider: 'sim' })).json().response.sid;
      const a1 = await createAgent();
      const a2 = await createAgent();
      await attach(a1, n.e164);
      await attach(a1, keep.e164);
      await attach(a2, n.e164);

      const res = await deleteNumber(n.slug);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', response: { answer: 'Phone number deleted' } });

      const agent1 = (await t.call({ method: 'GET', url: `/v2/assistants/${a1}` })).json().response;
      expect(agent1.assistants[0].attached_phone_numbers).toEqual([
        { number: keep.e164, sid: keepSid, slug: keep.slug },
      ]);
      const agent2 = (await t.call({ method: 'GET', url: `/v2/assistants/${a2}` })).json().response;
      expect(agent2.assistants[0].attached_phone_numbers).toEqual([]);

      expectNotFound(await getNumber(n.slug));
      expectNotFound(await deleteNumber(n.slug));
      const list = (await t.call({ method: 'GET', url: '/v2/numbers?limit=1000' })).json().response;
      expect((list.numbers as Json[]).map((x) => x.slug)).not.toContain(n.slug);
      // Detaching the deleted number now answers 404, and attaching it is refused.
      expectNotFound(await t.call({ method: 'DELETE', url: `/v2/assistants/${a2}/phone_numbers/${n.slug}` }));
      expectNotFound(
        await t.call({
          method: 'PUT',
          url: `/v2/assistants/${a2}/phone_numbers`,
          payload: { phone_numbers: [n.e164] },
        }),
      );
    });

    it('deletes by the URL-encoded plus form', async () => {
      const n = fresh();
      expect((await importNumber({ phone_number: n.e164, provider: 'sim' })).statusCode).toBe(200);
      expect((await deleteNumber(`%2B${n.slug}`)).statusCode).toBe(200);
      expectNotFound(await getNumber(n.slug));
    });

    it('allows importing the number again afterwards, fresh and unattached', async () => {
      const n = fresh();
      const first = (await importNumber({ phone_number: n.e164, provider: 'sim' })).json().response;
      await attach(await createAgent(), n.e164);
      expect((await deleteNumber(n.slug)).statusCode).toBe(200);
      const again = await importNumber({ phone_number: n.e164, provider: 'twilio' });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json().response).toMatchObject({ provider: 'twilio', attached_agents: [] });
      expect(again.json().response.sid).not.toBe(first.sid);
      expect((await getNumber(n.slug)).json().response.attached_agents).toEqual([]);
    });

    it('answers 404 for an unknown number', async () => {
      expectNotFound(await deleteNumber('16289999999'));
    });
  });

  describe('tenant isolation', () => {
    let n: ReturnType<typeof fresh>;
    let agent: string;
    let before: Json;

    beforeAll(async () => {
      n = fresh();
      expect((await importNumber({ phone_number: n.e164, provider: 'sim' })).statusCode).toBe(200);
      agent = await createAgent();
      await attach(agent, n.e164);
      before = (await getNumber(n.slug)).json();
    });

    it('get answers 404 to another workspace', async () => {
      const d = expectNotFound(await getNumber(n.slug, t.other.key));
      const missing = expectNotFound(await getNumber('16280000001', t.other.key));
      expect(d.category).toBe(missing.category);
    });

    it('delete answers 404 to another workspace and deletes nothing', async () => {
      expectNotFound(await deleteNumber(n.slug, t.other.key));
      expectNotFound(await deleteNumber(`%2B${n.slug}`, t.other.key));
      expect((await getNumber(n.slug)).json()).toEqual(before);
    });

    it('another workspace does not list it', async () => {
      const res = await t.call({ method: 'GET', url: '/v2/numbers?limit=1000', key: t.other.key });
      expect(res.statusCode).toBe(200);
      const slugs = (res.json().response.numbers as Json[]).map((x) => x.slug);
      expect(slugs).not.toContain(n.slug);
      expect(res.json().response.pagination.total_records).toBe(slugs.length);
    });

    it('another workspace cannot attach it to its own agent', async () => {
      const theirs = await createAgent(t.other.key);
      const res = await t.call({
        method: 'PUT',
        url: `/v2/assistants/${theirs}/phone_numbers`,
        key: t.other.key,
        payload: { phone_numbers: [n.e164] },
      });
      expectNotFound(res);
      expect((await getNumber(n.slug)).json().response.attached_agents).toEqual([agent]);
    });

    it('another workspace holds its own copy of the same number independently', async () => {
      const res = await importNumber({ phone_number: n.e164, provider: 'twilio' }, t.other.key);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toMatchObject({ provider: 'twilio', attached_agents: [] });
      expect(res.json().response.sid).not.toBe((before.response as Json).sid);
      expect((await getNumber(n.slug)).json()).toEqual(before);
      expect((await deleteNumber(n.slug, t.other.key)).statusCode).toBe(200);
      expect((await getNumber(n.slug)).json()).toEqual(before);
    });
  });

  describe('published fields on Parley bodies', () => {
    it('stores friendly_name and a provider_name label next to a Parley provider', async () => {
      const n = fresh();
      const res = await importNumber({
        phone_number: n.e164,
        provider: 'twilio',
        friendly_name: 'Main line',
        provider_name: 'twilio',
      });
      expect(res.statusCode, res.body).toBe(200);
      const at = res.json().response.created_at as string;
      expect(withoutKey(res.json().response)).toEqual(
        record(n.e164, at, { provider: 'twilio', provider_name: 'twilio', friendly_name: 'Main line' }),
      );
      expect((await getNumber(n.slug)).json().response.friendly_name).toBe('Main line');
    });

    it('shows a Parley sip trunk through the published fields', async () => {
      const n = fresh();
      const res = await importNumber({
        phone_number: n.e164,
        provider: 'sip',
        sip: {
          host: 'pbx.example.com',
          port: 5061,
          transport: 'tls',
          username: 'u',
          password: 'pw-1',
          uac_register_expires: 600,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toMatchObject({
        provider: 'sip',
        provider_name: 'custom',
        sip_term_uri: 'pbx.example.com:5061;transport=tls',
        uac_enabled: false,
        uac_register_expires: 600,
        sip_auth_username: null,
        sip_outbound_proxy: null,
        is_sms_capable: false,
      });
      const plain = await importNumber({
        phone_number: fresh().e164,
        provider: 'sip',
        sip: { host: '10.0.0.5' },
      });
      expect(plain.json().response).toMatchObject({ sip_term_uri: '10.0.0.5', uac_register_expires: 300 });
    });

    it("names the number's country", async () => {
      const res = await importNumber({ phone_number: '+33 6 12 34 56 78', provider: 'sim' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response.iso_country).toBe('FR');
    });

    it.each<[string, Json, Loc]>([
      [
        'termination_uri with provider sim',
        { provider: 'sim', termination_uri: 'x.example.com' },
        ['body', 'termination_uri'],
      ],
      ['trunk_pwd with provider twilio', { provider: 'twilio', trunk_pwd: 'p' }, ['body', 'trunk_pwd']],
      [
        'uac_enabled with provider custom',
        { provider: 'custom', uac_enabled: false },
        ['body', 'uac_enabled'],
      ],
      [
        'sip and a flat trunk field',
        { provider: 'sip', sip: { host: 'h' }, trunk_username: 'u' },
        ['body', 'trunk_username'],
      ],
    ])('refuses %s, naming the field', async (_label, body, loc) => {
      const n = fresh();
      expectFieldError(await importNumber({ phone_number: n.e164, ...body }), loc);
      expect((await getNumber(n.slug)).statusCode).toBe(404);
    });

    it("shows a subaccount's parent as agency_workspace_id", async () => {
      // Made in the store, as POST /v2/subaccounts would (its own tests cover that route).
      const sub = await t.store.workspaces.create({
        name: 'Client N',
        plan: 'enterprise',
        maxConcurrentCalls: 2,
        parentId: t.ws.id,
      });
      const subaccount_id = sub.id;
      const api_key = (await t.store.apiKeys.create(sub.id, 'test')).secret;
      const n = fresh();
      const res = await importNumber({ phone_number: n.e164, provider: 'sim' }, api_key);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toMatchObject({
        workspace_id: subaccount_id,
        agency_workspace_id: t.ws.id,
      });
      expect((await getNumber(n.slug, api_key)).json()).toMatchObject({
        workspace_id: subaccount_id,
        agency_workspace_id: t.ws.id,
      });
    });
  });

  describe('is_available', () => {
    let key: string;
    let free: ReturnType<typeof fresh>;
    let taken: ReturnType<typeof fresh>;
    let agent: string;

    beforeAll(async () => {
      key = (await createWorkspace(t.store, 'availability')).key;
      free = fresh();
      taken = fresh();
      for (const n of [free, taken]) {
        expect((await importNumber({ phone_number: n.e164, provider: 'sim' }, key)).statusCode).toBe(200);
      }
      agent = await createAgent(key);
      await attach(agent, taken.e164, key);
    });

    const slugsOf = (res: { json(): { response: { numbers: Json[] } } }) =>
      res.json().response.numbers.map((n) => n.slug);

    it('is true for a number attached to no agent, false once attached', async () => {
      expect((await getNumber(free.slug, key)).json().response).toMatchObject({
        is_available: true,
        assistants: [],
      });
      expect((await getNumber(taken.slug, key)).json().response).toMatchObject({
        is_available: false,
        assistants: [agent],
        attached_agents: [agent],
      });
    });

    it('filters the list, counting only the matching numbers', async () => {
      const list = (q: string) => t.call({ method: 'GET', url: `/v2/numbers${q}`, key });
      const yes = await list('?is_available=true');
      expect(yes.statusCode, yes.body).toBe(200);
      expect(slugsOf(yes)).toEqual([free.slug]);
      expect(yes.json().response.pagination.total_records).toBe(1);
      const no = await list('?is_available=false');
      expect(slugsOf(no)).toEqual([taken.slug]);
      expect(no.json().response.pagination.total_records).toBe(1);
      expect(slugsOf(await list(''))).toEqual([taken.slug, free.slug]);
    });

    it('follows a detach', async () => {
      const other = await createAgent(key);
      await attach(other, free.e164, key);
      expect((await getNumber(free.slug, key)).json().response.is_available).toBe(false);
      const res = await t.call({
        method: 'DELETE',
        url: `/v2/assistants/${other}/phone_numbers/${free.slug}`,
        key,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((await getNumber(free.slug, key)).json().response.is_available).toBe(true);
    });

    it.each(['maybe', '2', ''])('refuses is_available=%j', async (value) => {
      const res = await t.call({ method: 'GET', url: `/v2/numbers?is_available=${value}`, key });
      expectFieldError(res, ['query', 'is_available']);
    });
  });

  describe('PATCH /v2/numbers/{slug}', () => {
    const patchNumber = (slug: string, payload: Payload, key?: string) =>
      t.call({ method: 'PATCH', url: `/v2/numbers/${slug}`, payload, key });

    async function simNumber() {
      const n = fresh();
      const res = await importNumber({ phone_number: n.e164, provider: 'sim' });
      expect(res.statusCode, res.body).toBe(200);
      return { ...n, created: withoutKey(res.json().response) };
    }

    it('renames a number, answering the record', async () => {
      const n = await simNumber();
      clock.advance(5_000);
      const res = await patchNumber(n.slug, { friendly_name: 'Front desk' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        status: 'ok',
        response: {
          ...n.created,
          friendly_name: 'Front desk',
          updated_at: new Date(clock.now()).toISOString(),
        },
      });
      expect((await getNumber(n.slug)).json().response).toEqual(res.json().response);
    });

    it('changes nothing for an empty object', async () => {
      const n = await simNumber();
      clock.advance(1_000);
      const res = await patchNumber(n.slug, {});
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toEqual(n.created);
    });

    it('attaches an agent by model_id, and agent reads show it at once', async () => {
      const n = await simNumber();
      const agent = await createAgent();
      const readAgent = async () =>
        (await t.call({ method: 'GET', url: `/v2/assistants/${agent}` })).json().response.assistants[0];
      expect((await readAgent()).attached_phone_numbers).toEqual([]); // now cached
      const res = await patchNumber(n.slug, { model_id: agent });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toMatchObject({
        attached_agents: [agent],
        assistants: [agent],
        is_available: false,
        updated_at: n.created.updated_at, // the number itself did not change
      });
      expect((await readAgent()).attached_phone_numbers).toEqual([
        { number: n.e164, sid: n.created.sid, slug: n.slug },
      ]);
      // Again: nothing more; a second agent is added next to the first.
      expect((await patchNumber(n.slug, { model_id: agent })).json().response.attached_agents).toEqual([
        agent,
      ]);
      const second = await createAgent();
      clock.advance(1_000);
      expect((await patchNumber(n.slug, { model_id: second })).json().response.attached_agents).toEqual([
        agent,
        second,
      ]);
    });

    it('answers 404 naming body.model_id for an unknown agent, changing nothing', async () => {
      const n = await simNumber();
      const theirs = await createAgent(t.other.key);
      for (const model_id of [MISSING_ID, 'nope', theirs]) {
        const d = expectNotFound(await patchNumber(n.slug, { model_id, friendly_name: 'changed' }));
        expect(d.description).toContain('body.model_id');
      }
      expect((await getNumber(n.slug)).json().response).toEqual(n.created);
    });

    it('answers 404 for an unknown number and for another workspace', async () => {
      const n = await simNumber();
      expectNotFound(await patchNumber('16289999999', { friendly_name: 'x' }));
      expectNotFound(await patchNumber(n.slug, { friendly_name: 'x' }, t.other.key));
      expect((await getNumber(n.slug)).json().response).toEqual(n.created);
    });

    it.each<[string, Payload, Loc]>([
      ['a null body', 'null', ['body']],
      ['an array body', '[]', ['body']],
      ['a numeric friendly_name', { friendly_name: 5 }, ['body', 'friendly_name']],
      ['a null model_id', { model_id: null }, ['body', 'model_id']],
      ['an empty model_id', { model_id: '' }, ['body', 'model_id']],
      ['a string uac_enabled', { uac_enabled: 'yes' }, ['body', 'uac_enabled']],
      ['uac_register_expires 30', { uac_register_expires: 30 }, ['body', 'uac_register_expires']],
      ['an unknown provider_name', { provider_name: 'bandwidth' }, ['body', 'provider_name']],
      ['an unknown provider', { provider: 'vonage' }, ['body', 'provider']],
      ['SIP settings on a sim number', { termination_uri: 'h.example.com' }, ['body', 'termination_uri']],
      [
        'a non-auto provider_name without a SIP domain',
        { provider_name: 'vonage' },
        ['body', 'termination_uri'],
      ],
      ['provider sip without settings', { provider: 'sip' }, ['body', 'sip']],
    ])('refuses %s, naming the field and changing nothing', async (_label, payload, loc) => {
      const n = await simNumber();
      const res = await t.call({
        method: 'PATCH',
        url: `/v2/numbers/${n.slug}`,
        payload,
        headers: { 'content-type': 'application/json' },
      });
      expectFieldError(res, loc);
      expect((await getNumber(n.slug)).json().response).toEqual(n.created);
    });

    it('turns a sim number into a SIP trunk number, keeping the password write-only', async () => {
      const n = await simNumber();
      const res = await patchNumber(n.slug, {
        provider_name: 'telnyx',
        termination_uri: 'sip:acme.sip.telnyx.com:5061;transport=tls',
        trunk_username: 'acme',
        trunk_pwd: 'tr-s3cret',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toMatchObject({
        provider: 'sip',
        provider_name: 'telnyx',
        sip: {
          host: 'acme.sip.telnyx.com',
          port: 5061,
          transport: 'tls',
          username: 'acme',
          has_password: true,
          uac_register_expires: 300,
          allowed_addresses: [],
          inbound_username: null,
          has_inbound_password: false,
        },
        sip_term_uri: 'sip:acme.sip.telnyx.com:5061;transport=tls',
        uac_register_expires: 300,
      });
      expect(res.body).not.toContain('tr-s3cret');
      expect((await getNumber(n.slug)).body).not.toContain('tr-s3cret');

      // Another setting alone keeps the password; '' clears a setting.
      const proxy = await patchNumber(n.slug, { sip_outbound_proxy: 'edge.example.com' });
      expect(proxy.json().response).toMatchObject({
        sip_outbound_proxy: 'edge.example.com',
        sip: { has_password: true, host: 'acme.sip.telnyx.com' },
      });
      const cleared = await patchNumber(n.slug, { trunk_pwd: '', sip_outbound_proxy: '' });
      expect(cleared.json().response).toMatchObject({
        sip_outbound_proxy: null,
        sip: { has_password: false },
      });

      // Back to a Parley provider: the trunk settings and the published name go.
      const back = await patchNumber(n.slug, { provider: 'twilio' });
      expect(back.statusCode, back.body).toBe(200);
      expect(back.json().response).toMatchObject({
        provider: 'twilio',
        provider_name: 'twilio',
        sip: null,
        sip_term_uri: '',
        uac_register_expires: null,
      });
    });

    it('needs trunk credentials to enable registration', async () => {
      const n = fresh();
      const res = await importNumber({
        phone_number: n.e164,
        provider: 'sip',
        sip: { host: 'pbx.example.com' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expectFieldError(await patchNumber(n.slug, { uac_enabled: true }), ['body', 'trunk_username']);
      expectFieldError(await patchNumber(n.slug, { uac_enabled: true, trunk_username: 'u' }), [
        'body',
        'trunk_pwd',
      ]);
      const on = await patchNumber(n.slug, { uac_enabled: true, trunk_username: 'u', trunk_pwd: 'p' });
      expect(on.statusCode, on.body).toBe(200);
      expect(on.json().response).toMatchObject({
        uac_enabled: true,
        sip: { username: 'u', has_password: true },
      });
      // Clearing a credential while registration is on is refused.
      expectFieldError(await patchNumber(n.slug, { trunk_pwd: '' }), ['body', 'trunk_pwd']);
    });
  });

  describe('auth', () => {
    it.each([
      ['GET', '/v2/numbers'],
      ['GET', '/v2/numbers/16280000000'],
      ['DELETE', '/v2/numbers/16280000000'],
      ['POST', '/v2/custom-numbers'],
      ['PATCH', '/v2/numbers/16280000000'],
    ] as const)('%s %s answers 401 without a key', async (method, url) => {
      const withBody = method === 'POST' || method === 'PATCH';
      const res = await t.call({ method, url, key: null, payload: withBody ? {} : undefined });
      expectErrorBody(res, 401, 'auth');
    });
  });
});
