import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, expectFieldError, expectNotFound, type Loc, UUID } from '../assertions.ts';
import { agentBody, createTestApi, createWorkspace, forEachStore, type TestApi } from '../helpers.ts';

// Phone numbers as clients of the vendor's published API use them: imports with the published
// body (`provider_name`, a termination URI, trunk credentials, and the vendor's `workspace_id`),
// lists read as `response.phone_numbers`, the number read bare (its fields at the top level),
// PATCH with the published settings, and body-less requests sent with a JSON content type.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const JSON_TYPE = { 'content-type': 'application/json' };
const PROVIDER_NAMES = ['twilio', 'telnyx', 'vonage', 'ring_central', 'ringcx', 'custom', 'zoom', 'five9'];
/** The vendor's workspace id, as a client configured for the vendor sends it: ignored. */
const VENDOR_WS = 'wks_4f1d2c';

forEachStore('compat: phone numbers', (target) => {
  let t: TestApi;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  /** A fresh, unused US number: E.164 and slug. */
  function fresh() {
    seq += 1;
    const e164 = `+1628555${String(3000 + seq)}`;
    return { e164, slug: e164.slice(1) };
  }

  const send = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
    url: string,
    payload?: unknown,
    key?: string,
  ) =>
    t.call({
      method,
      url,
      headers: JSON_TYPE,
      payload: payload === undefined ? '' : JSON.stringify(payload),
      ...(key ? { key } : {}),
    });

  const importNumber = (body: Json, key?: string) => send('POST', '/v2/custom-numbers', body, key);
  const getNumber = (slug: string, key?: string) =>
    send('GET', `/v2/numbers/${slug}?workspace=${VENDOR_WS}`, undefined, key);

  /** A published import of a SIP trunk number; answers the number. */
  async function importTrunk(extra: Json = {}, key?: string) {
    const n = fresh();
    const res = await importNumber(
      {
        workspace_id: VENDOR_WS,
        phone_number: n.e164,
        provider_name: 'twilio',
        termination_uri: 'acme.pstn.twilio.com',
        ...extra,
      },
      key,
    );
    expect(res.statusCode, res.body).toBe(200);
    return n;
  }

  async function createAgent(key?: string): Promise<string> {
    const res = await send('POST', '/v2/assistants', agentBody(), key);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response.model_id as string;
  }

  describe('POST /v2/custom-numbers with the published body', () => {
    it('imports a SIP trunk number and answers key and phone_number', async () => {
      const n = fresh();
      const res = await importNumber({
        workspace_id: VENDOR_WS,
        phone_number: n.e164,
        friendly_name: 'Support line',
        provider_name: 'twilio',
        termination_uri: 'acme.pstn.twilio.com',
        trunk_username: 'acme',
        trunk_pwd: 'Tr0nk-pa55',
        sip_outbound_proxy: 'edge.acme.example',
        sip_auth_username: 'acme-reg',
        uac_enabled: true,
        uac_register_expires: 900,
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.status).toBe('ok');
      expect(body.response.key).toMatch(UUID);
      expect(body.response.phone_number).toBe(n.e164);
      expect(body.response.sid).toBe(body.response.key);
      expect(res.body).not.toContain('Tr0nk-pa55');

      const read = await getNumber(n.slug);
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json()).toMatchObject({
        slug: n.slug,
        phone_number: n.e164,
        sid: body.response.key,
        friendly_name: 'Support line',
        provider_name: 'twilio',
        sip_term_uri: 'acme.pstn.twilio.com',
        sip_outbound_proxy: 'edge.acme.example',
        sip_auth_username: 'acme-reg',
        uac_enabled: true,
        uac_register_expires: 900,
        is_voice_capable: true,
        is_available: true,
        assistants: [],
        workspace_id: t.ws.id,
      });
      expect(read.body).not.toContain('Tr0nk-pa55');
      expect(read.body).not.toContain('trunk_pwd');
      // Parley's own view of the same trunk.
      expect(read.json().response).toMatchObject({
        provider: 'sip',
        sip: { host: 'acme.pstn.twilio.com', port: 5060, username: 'acme', has_password: true },
      });
    });

    it.each(PROVIDER_NAMES)('accepts provider_name %s with a termination URI', async (provider_name) => {
      const n = fresh();
      const res = await importNumber({
        workspace_id: VENDOR_WS,
        phone_number: n.e164,
        provider_name,
        termination_uri: 'sip:trunk.example.com:5080;transport=tcp',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((await getNumber(n.slug)).json()).toMatchObject({
        provider_name,
        sip_term_uri: 'sip:trunk.example.com:5080;transport=tcp',
      });
    });

    it.each([
      ['ringcx', 'sip.ringcentral.com'],
      ['zoom', 'sip.zoom.com'],
    ])('fills the SIP domain of %s when none is given', async (provider_name, domain) => {
      const n = fresh();
      const res = await importNumber({ workspace_id: VENDOR_WS, phone_number: n.e164, provider_name });
      expect(res.statusCode, res.body).toBe(200);
      expect((await getNumber(n.slug)).json()).toMatchObject({ provider_name, sip_term_uri: domain });
    });

    it.each(['custom', 'twilio', 'telnyx', 'vonage', 'ring_central', 'five9'])(
      'requires termination_uri for provider_name %s',
      async (provider_name) => {
        const n = fresh();
        const res = await importNumber({ workspace_id: VENDOR_WS, phone_number: n.e164, provider_name });
        const d = expectFieldError(res, ['body', 'termination_uri']);
        expect(d.description).toContain(provider_name);
        expectNotFound(await getNumber(n.slug));
      },
    );

    it('is a custom trunk when provider_name is omitted', async () => {
      const n = fresh();
      const res = await importNumber({
        workspace_id: VENDOR_WS,
        phone_number: n.e164,
        termination_uri: 'pbx.example.com',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((await getNumber(n.slug)).json()).toMatchObject({
        provider_name: 'custom',
        sip_term_uri: 'pbx.example.com',
      });
    });

    it('takes sip_term_uri as an alias of termination_uri', async () => {
      const n = fresh();
      const res = await importNumber({
        workspace_id: VENDOR_WS,
        phone_number: n.e164,
        provider_name: 'telnyx',
        sip_term_uri: 'acme.sip.telnyx.com',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response.sip_term_uri).toBe('acme.sip.telnyx.com');
    });

    it('names both ways of choosing a carrier when the body gives neither', async () => {
      const n = fresh();
      const res = await importNumber({
        workspace_id: VENDOR_WS,
        phone_number: n.e164,
        friendly_name: n.e164,
        trunk_username: 'u',
        trunk_pwd: 'p',
      });
      const d = expectErrorBody(res, 400, 'validation');
      const locs = (d.errors as { loc: Loc }[]).map((e) => e.loc);
      expect(locs).toContainEqual(['body', 'termination_uri']);
      expect(locs).toContainEqual(['body', 'provider']);
      expect(d.description).toContain('body.termination_uri');
    });

    it('takes empty strings as unset', async () => {
      const n = fresh();
      const res = await importNumber({
        workspace_id: VENDOR_WS,
        phone_number: n.e164,
        friendly_name: '',
        provider_name: 'zoom',
        termination_uri: '',
        trunk_username: '',
        trunk_pwd: '',
        sip_outbound_proxy: '',
        sip_auth_username: '',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((await getNumber(n.slug)).json()).toMatchObject({
        friendly_name: '',
        sip_term_uri: 'sip.zoom.com',
        sip_outbound_proxy: null,
        sip_auth_username: null,
      });
    });

    it.each<[string, Json, Loc]>([
      ['an unknown provider_name', { provider_name: 'bandwidth' }, ['body', 'provider_name']],
      ['a capitalized provider_name', { provider_name: 'Twilio' }, ['body', 'provider_name']],
      ['a numeric provider_name', { provider_name: 7 }, ['body', 'provider_name']],
      ['a string uac_enabled', { uac_enabled: 'true' }, ['body', 'uac_enabled']],
      ['uac_register_expires 59', { uac_register_expires: 59 }, ['body', 'uac_register_expires']],
      ['uac_register_expires 3601', { uac_register_expires: 3601 }, ['body', 'uac_register_expires']],
      ['a string uac_register_expires', { uac_register_expires: '300' }, ['body', 'uac_register_expires']],
      ['a numeric trunk_username', { trunk_username: 42 }, ['body', 'trunk_username']],
      ['a null trunk_pwd', { trunk_pwd: null }, ['body', 'trunk_pwd']],
      ['a numeric workspace_id', { workspace_id: 7 }, ['body', 'workspace_id']],
      ['a null friendly_name', { friendly_name: null }, ['body', 'friendly_name']],
      ['a termination_uri with spaces', { termination_uri: 'not a uri' }, ['body', 'termination_uri']],
      [
        'a termination_uri port out of range',
        { termination_uri: 'sip:h.example.com:70000' },
        ['body', 'termination_uri'],
      ],
      [
        'a termination_uri transport ws',
        { termination_uri: 'h.example.com;transport=ws' },
        ['body', 'termination_uri'],
      ],
      ['a numeric termination_uri', { termination_uri: 5060 }, ['body', 'termination_uri']],
      ['registration without a user', { uac_enabled: true, trunk_pwd: 'p' }, ['body', 'trunk_username']],
      ['registration without a password', { uac_enabled: true, trunk_username: 'u' }, ['body', 'trunk_pwd']],
    ])('refuses %s, naming the field', async (_label, extra, loc) => {
      const n = fresh();
      const res = await importNumber({
        workspace_id: VENDOR_WS,
        phone_number: n.e164,
        provider_name: 'twilio',
        termination_uri: 'acme.pstn.twilio.com',
        ...extra,
      });
      expectFieldError(res, loc);
      expectNotFound(await getNumber(n.slug));
    });

    it.each(['null', '[]', '"+16285550000"'])('refuses the body %s', async (raw) => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/custom-numbers',
        headers: JSON_TYPE,
        payload: raw,
      });
      expectFieldError(res, ['body']);
    });

    it('refuses an empty body, naming the missing fields', async () => {
      const d = expectErrorBody(await send('POST', '/v2/custom-numbers'), 400, 'validation');
      expect(d.description).toContain('body');
    });
  });

  describe('GET /v2/numbers', () => {
    let key: string;
    let free: string;
    let taken: string;
    let agent: string;

    beforeAll(async () => {
      key = (await createWorkspace(t.store, 'compat-list')).key;
      free = (await importTrunk({}, key)).e164;
      taken = (await importTrunk({ provider_name: 'zoom', termination_uri: undefined }, key)).e164;
      agent = await createAgent(key);
      const res = await send('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: [taken] }, key);
      expect(res.statusCode, res.body).toBe(200);
    });

    it('answers response.phone_numbers with number, sid and is_available', async () => {
      const res = await send('GET', `/v2/numbers?workspace=${VENDOR_WS}&limit=20&offset=0`, undefined, key);
      expect(res.statusCode, res.body).toBe(200);
      const { pagination, phone_numbers } = res.json().response as Json;
      expect(pagination).toEqual({ total_records: 2, limit: 20, offset: 0 });
      expect(phone_numbers).toHaveLength(2);
      for (const item of phone_numbers as Json[]) {
        expect(typeof item.number).toBe('string');
        expect(item.sid).toMatch(UUID);
        expect(typeof item.is_available).toBe('boolean');
      }
      const byNumber = new Map((phone_numbers as Json[]).map((i) => [i.number, i]));
      expect(byNumber.get(free)).toMatchObject({ is_available: true, phone_number: free, assistants: [] });
      expect(byNumber.get(taken)).toMatchObject({
        is_available: false,
        phone_number: taken,
        assistants: [agent],
      });
    });

    it('filters with is_available', async () => {
      const list = async (value: boolean) =>
        (await send('GET', `/v2/numbers?workspace=${VENDOR_WS}&is_available=${value}`, undefined, key)).json()
          .response as Json;
      const available = await list(true);
      expect(available.phone_numbers.map((i: Json) => i.number)).toEqual([free]);
      expect(available.pagination.total_records).toBe(1);
      const assigned = await list(false);
      expect(assigned.phone_numbers.map((i: Json) => i.number)).toEqual([taken]);
    });
  });

  describe('GET /v2/numbers/{slug}', () => {
    it('serves the published fields at the top level, as the bare published body, and in response', async () => {
      const n = await importTrunk({ friendly_name: 'Sales' });
      const first = await createAgent();
      const second = await createAgent();
      for (const agent of [first, second]) {
        const res = await send('PUT', `/v2/assistants/${agent}/phone_numbers`, {
          phone_number_slugs: [n.slug],
        });
        expect(res.statusCode, res.body).toBe(200);
      }
      const res = await getNumber(n.slug);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as Json;
      const published = {
        slug: n.slug,
        phone_number: n.e164,
        sid: expect.stringMatching(UUID),
        friendly_name: 'Sales',
        provider_name: 'twilio',
        sip_term_uri: 'acme.pstn.twilio.com',
        sip_outbound_proxy: null,
        sip_auth_username: null,
        uac_enabled: false,
        uac_register_expires: 300,
        is_voice_capable: true,
        is_sms_capable: false,
        iso_country: 'US',
        locality: '',
        region: '',
        address_requirement: '',
        is_available: false,
        assistants: [first, second],
        workspace_id: t.ws.id,
        agency_workspace_id: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      };
      expect(body).toMatchObject(published);
      expect(body.response).toMatchObject(published);
      expect(Date.parse(body.created_at)).not.toBeNaN();
      // The bare fields are exactly the published ones (plus the envelope).
      expect(Object.keys(body).sort()).toEqual(['response', 'status', ...Object.keys(published)].sort());
    });

    it('answers 404 for a number that is not in the workspace', async () => {
      expectNotFound(await getNumber('16289990000'));
    });
  });

  describe('PATCH /v2/numbers/{slug} with the published body', () => {
    it('updates the name and the SIP settings', async () => {
      const n = await importTrunk();
      const res = await send('PATCH', `/v2/numbers/${n.slug}`, {
        friendly_name: 'Renamed',
        sip_term_uri: 'sips:new.pstn.twilio.com',
        sip_outbound_proxy: 'edge.example.com',
        sip_auth_username: 'reg-user',
        trunk_username: 'user',
        trunk_pwd: 'Patch-pa55',
        uac_enabled: true,
        uac_register_expires: 120,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().status).toBe('ok');
      expect(res.body).not.toContain('Patch-pa55');
      const read = await getNumber(n.slug);
      expect(read.json()).toMatchObject({
        friendly_name: 'Renamed',
        sip_term_uri: 'sips:new.pstn.twilio.com',
        sip_outbound_proxy: 'edge.example.com',
        sip_auth_username: 'reg-user',
        uac_enabled: true,
        uac_register_expires: 120,
      });
      expect(read.json().response.sip).toMatchObject({ host: 'new.pstn.twilio.com', transport: 'tls' });
      expect(read.body).not.toContain('Patch-pa55');
    });

    it('takes termination_uri as an alias of sip_term_uri', async () => {
      const n = await importTrunk();
      const res = await send('PATCH', `/v2/numbers/${n.slug}`, { termination_uri: 'other.pstn.twilio.com' });
      expect(res.statusCode, res.body).toBe(200);
      expect((await getNumber(n.slug)).json().sip_term_uri).toBe('other.pstn.twilio.com');
    });

    it('changes the provider, needing a SIP domain unless the provider has one', async () => {
      const n = fresh();
      expect((await importNumber({ phone_number: n.e164, provider: 'sim' })).statusCode).toBe(200);
      expectFieldError(await send('PATCH', `/v2/numbers/${n.slug}`, { provider_name: 'vonage' }), [
        'body',
        'termination_uri',
      ]);
      const res = await send('PATCH', `/v2/numbers/${n.slug}`, { provider_name: 'ringcx' });
      expect(res.statusCode, res.body).toBe(200);
      expect((await getNumber(n.slug)).json()).toMatchObject({
        provider_name: 'ringcx',
        sip_term_uri: 'sip.ringcentral.com',
      });
    });

    it('refuses an empty or null body, naming body', async () => {
      const n = await importTrunk();
      expectFieldError(await send('PATCH', `/v2/numbers/${n.slug}`), ['body']);
      expectFieldError(await send('PATCH', `/v2/numbers/${n.slug}`, null), ['body']);
    });
  });

  describe('DELETE /v2/numbers/{slug}', () => {
    it('deletes with a JSON content type and an empty body', async () => {
      const n = await importTrunk();
      const res = await send('DELETE', `/v2/numbers/${n.slug}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().status).toBe('ok');
      expectNotFound(await getNumber(n.slug));
      expectNotFound(await send('DELETE', `/v2/numbers/${n.slug}`));
    });
  });
});
