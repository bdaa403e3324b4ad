import { describe, expect, it } from 'vitest';
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
