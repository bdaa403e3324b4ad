import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeTargets } from '../../src/store/testing/index.ts';
import { createTestApi, type TestApi } from '../helpers.ts';
import { hasCommands, runSipp } from './sipp.ts';

// Registration with a trunk that asks for it (`uac_enabled`), against sipp as a registrar that
// demands digest authentication: Parley answers the challenge, refreshes before the binding runs
// out, and the number's read shows the state; wrong credentials leave it `failed` with the reason.

const hasSipp = hasCommands('sipp');
const runHere = hasSipp || Boolean(process.env.CI);
if (!runHere)
  console.warn('SIP registration tests skipped: sipp is not installed (apt-get install sip-tester)');

interface NumberRead {
  sip_registration: { state: string; last_error: string | null; expires_at: string | null } | null;
  uac_enabled: boolean;
}

describe.runIf(runHere)('SIP registration against sipp as a digest registrar', () => {
  const target = storeTargets()[0];
  if (!target) throw new Error('no store target');
  let t: TestApi;

  beforeAll(async () => {
    t = await createTestApi(target, { sip: {} });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function readNumber(slug: string): Promise<NumberRead> {
    const res = await t.call({ method: 'GET', url: `/v2/numbers/${slug}` });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: NumberRead }).response;
  }

  async function registerWith(number: string, password: string, expires: string) {
    const sipp = await runSipp({
      scenario: 'registrar.xml',
      replace: { user: 'trunk-user', password: 'right-secret', expires },
      timeoutMs: 30_000,
    });
    const imported = await t.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: {
        phone_number: number,
        provider_name: 'custom',
        termination_uri: `127.0.0.1:${sipp.port}`,
        trunk_username: 'trunk-user',
        trunk_pwd: password,
        uac_enabled: true,
      },
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json().response.sip_registration).toBeNull();
    await t.sip?.carrier.registrations.sync();
    return sipp;
  }

  it('registers with digest credentials, refreshes before expiry, and the number reads registered', async () => {
    const number = '+14155550180';
    const sipp = await registerWith(number, 'right-secret', '2');
    const result = await sipp.done;
    // sipp exits 0 only after the challenge was answered right and the refresh came.
    expect(result.code, result.out).toBe(0);
    // The refresh was granted 300 s: once it is saved the binding runs well past the first 2 s.
    let read = await readNumber(number.slice(1));
    while (Date.parse(read.sip_registration?.expires_at ?? '') - Date.now() < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      read = await readNumber(number.slice(1));
    }
    expect(read.uac_enabled).toBe(true);
    expect(read.sip_registration).toMatchObject({ state: 'registered', last_error: null });
  }, 40_000);

  it('reads failed with the reason when the registrar refuses the credentials', async () => {
    const number = '+14155550181';
    const sipp = await registerWith(number, 'wrong-secret', '60');
    const result = await sipp.done;
    expect(result.code, result.out).toBe(0);
    for (;;) {
      const read = await readNumber(number.slice(1));
      if (read.sip_registration?.state === 'failed') {
        expect(read.sip_registration.last_error).toContain('403');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 40_000);
});
