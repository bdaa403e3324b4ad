import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundHttpError, createSafeFetch, isBlockedAddress } from './index.ts';

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ])('blocks %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(isBlockedAddress(address)).toBe(false);
    },
  );
});

describe('createSafeFetch', () => {
  const safe = createSafeFetch({ timeoutMs: 2000 });

  it.each([
    'http://127.0.0.1:1/',
    'http://10.0.0.5/x',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.1]/',
  ])('refuses %s before connecting', async (url) => {
    const err = await safe({ url, method: 'GET' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundHttpError);
    expect((err as OutboundHttpError).reason).toBe('blocked_address');
  });

  it('refuses a host name that resolves to a private address', async () => {
    let looked = '';
    const fetch = createSafeFetch({
      lookup: async (host) => {
        looked = host;
        return [{ address: '10.0.0.7', family: 4 }];
      },
    });
    const err = await fetch({ url: 'http://intranet.example/', method: 'GET' }).catch((e: unknown) => e);
    expect(looked).toBe('intranet.example');
    expect((err as OutboundHttpError).reason).toBe('blocked_address');
  });

  it('refuses other schemes', async () => {
    const err = await safe({ url: 'file:///etc/passwd', method: 'GET' }).catch((e: unknown) => e);
    expect((err as OutboundHttpError).reason).toBe('bad_url');
    const ftp = await safe({ url: 'ftp://example.com/', method: 'GET' }).catch((e: unknown) => e);
    expect((ftp as OutboundHttpError).reason).toBe('bad_url');
  });
});

// Two real origins: the same host on two ports (a different port is a different origin).
describe('createSafeFetch redirects', () => {
  interface Seen {
    origin: 'a' | 'b';
    method: string;
    path: string;
    headers: http.IncomingHttpHeaders;
    body: string;
  }
  const seen: Seen[] = [];
  const servers: http.Server[] = [];
  const base = { a: '', b: '' };
  const fetch = createSafeFetch({ allowPrivateNetwork: true, timeoutMs: 5000 });

  const serve = (origin: 'a' | 'b') =>
    http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const path = req.url ?? '/';
        seen.push({ origin, method: req.method ?? '', path, headers: req.headers, body });
        const redirect = (status: number, location: string) => {
          res.statusCode = status;
          res.setHeader('location', location);
          res.end();
        };
        if (path === '/same') return redirect(307, '/echo');
        if (path === '/cross') return redirect(307, `${base.b}/echo`);
        if (path === '/cross-303') return redirect(303, `${base.b}/echo`);
        if (path === '/there-and-back') return redirect(307, `${base.b}/back`);
        if (path === '/back') return redirect(307, `${base.a}/echo`);
        res.end('{}');
      });
    });

  beforeAll(async () => {
    for (const origin of ['a', 'b'] as const) {
      const server = serve(origin);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      base[origin] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  });
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  const headers = {
    'X-Api-Key': 'k-123',
    Authorization: 'Bearer secret',
    Cookie: 'session=1',
    'X-Customer': 'c7',
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'parley-test',
  };
  const send = async (path: string) => {
    seen.length = 0;
    const res = await fetch({ url: `${base.a}${path}`, method: 'POST', headers, body: '{"n":1}' });
    expect(res.status).toBe(200);
    return res;
  };

  it('keeps every header on a same-origin redirect', async () => {
    const res = await send('/same');
    expect(res.url).toBe(`${base.a}/echo`);
    const last = seen.at(-1);
    expect(last).toMatchObject({ origin: 'a', method: 'POST', path: '/echo', body: '{"n":1}' });
    expect(last?.headers).toMatchObject({
      'x-api-key': 'k-123',
      authorization: 'Bearer secret',
      cookie: 'session=1',
      'x-customer': 'c7',
    });
  });

  it('drops every caller header but the safe ones when the redirect leads to another origin', async () => {
    const res = await send('/cross');
    expect(res.url).toBe(`${base.b}/echo`);
    expect(seen.map((s) => [s.origin, s.path])).toEqual([
      ['a', '/cross'],
      ['b', '/echo'],
    ]);
    expect(seen[0]?.headers['x-api-key']).toBe('k-123');
    const other = seen[1];
    // 307 keeps the method and the body...
    expect(other).toMatchObject({ method: 'POST', body: '{"n":1}' });
    // ...but none of the caller's headers except the safelisted ones.
    for (const name of ['x-api-key', 'authorization', 'cookie', 'x-customer']) {
      expect(other?.headers[name], name).toBeUndefined();
    }
    expect(other?.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'parley-test',
    });
  });

  it('does not restore dropped headers when a later hop comes back to the first origin', async () => {
    await send('/there-and-back');
    expect(seen.map((s) => [s.origin, s.path])).toEqual([
      ['a', '/there-and-back'],
      ['b', '/back'],
      ['a', '/echo'],
    ]);
    expect(seen[2]?.headers['x-api-key']).toBeUndefined();
    expect(seen[2]?.headers.authorization).toBeUndefined();
  });

  it('lets only the headers the caller names as no secret follow to another origin', async () => {
    seen.length = 0;
    await fetch({
      url: `${base.a}/cross`,
      method: 'POST',
      headers: { ...headers, 'webhook-signature': 'v1,abc' },
      body: '{"n":1}',
      keepAcrossOrigins: ['Webhook-Signature'],
    });
    expect(seen[1]?.origin).toBe('b');
    expect(seen[1]?.headers['webhook-signature']).toBe('v1,abc');
    expect(seen[1]?.headers['x-api-key']).toBeUndefined();
    expect(seen[1]?.headers.authorization).toBeUndefined();
  });

  it('turns a 303 into a GET without a body or its content type', async () => {
    await send('/cross-303');
    expect(seen[1]).toMatchObject({ origin: 'b', method: 'GET', body: '' });
    expect(seen[1]?.headers['content-type']).toBeUndefined();
    expect(seen[1]?.headers['x-api-key']).toBeUndefined();
  });
});
