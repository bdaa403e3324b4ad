import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  authorize,
  challengeHeader,
  parseChallenge,
  parseDigestParams,
  verifyAuthorization,
} from './digest.ts';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

describe('SIP digest', () => {
  it('reads a challenge with quoted and bare values', () => {
    expect(
      parseChallenge(
        'Digest realm="sip.example.com", nonce="n1", qop="auth,auth-int", opaque="o", algorithm=MD5, stale=TRUE',
      ),
    ).toEqual({
      realm: 'sip.example.com',
      nonce: 'n1',
      algorithm: 'MD5',
      qop: 'auth',
      opaque: 'o',
      stale: true,
    });
    expect(parseChallenge('Basic realm="x"')).toBeNull();
    expect(parseChallenge('Digest realm="x"')).toBeNull();
    expect(parseChallenge('Digest realm="x", nonce="n", algorithm=SHA-512')).toBeNull();
  });

  it('answers without qop as RFC 2617 computes it (checked by hand)', () => {
    const challenge = parseChallenge('Digest realm="r", nonce="abc"');
    if (!challenge) throw new Error('unparsed');
    const header = authorize(challenge, { username: 'u', password: 'p' }, 'INVITE', 'sip:+1@h');
    const params = parseDigestParams(header);
    const want = md5(`${md5('u:r:p')}:abc:${md5('INVITE:sip:+1@h')}`);
    expect(params?.get('response')).toBe(want);
    expect(params?.get('qop')).toBeUndefined();
  });

  it('answers with qop=auth, counting nonces, and quotes the opaque back', () => {
    const challenge = parseChallenge('Digest realm="r", nonce="abc", qop="auth", opaque="op"');
    if (!challenge) throw new Error('unparsed');
    const params = parseDigestParams(
      authorize(challenge, { username: 'u', password: 'p' }, 'REGISTER', 'sip:h', 2),
    );
    const cnonce = params?.get('cnonce') ?? '';
    const want = md5(`${md5('u:r:p')}:abc:00000002:${cnonce}:auth:${md5('REGISTER:sip:h')}`);
    expect(params?.get('response')).toBe(want);
    expect(params?.get('nc')).toBe('00000002');
    expect(params?.get('opaque')).toBe('op');
  });

  it('verifies answers to our own challenge and refuses wrong ones', () => {
    const { value, nonce } = challengeHeader('parley');
    const challenge = parseChallenge(value);
    if (!challenge) throw new Error('unparsed');
    const expected = { realm: 'parley', username: 'trunk', password: 'secret', method: 'INVITE' };
    const good = authorize(challenge, { username: 'trunk', password: 'secret' }, 'INVITE', 'sip:+1@h');
    const ours = (n: string) => n === nonce;
    expect(verifyAuthorization(good, expected, ours)).toBe(true);
    expect(
      verifyAuthorization(
        authorize(challenge, { username: 'trunk', password: 'wrong' }, 'INVITE', 'sip:+1@h'),
        expected,
        ours,
      ),
    ).toBe(false);
    expect(
      verifyAuthorization(
        authorize(challenge, { username: 'other', password: 'secret' }, 'INVITE', 'sip:+1@h'),
        expected,
        ours,
      ),
    ).toBe(false);
    expect(verifyAuthorization(good, { ...expected, method: 'BYE' }, ours)).toBe(false);
    expect(verifyAuthorization(good, expected, () => false)).toBe(false);
    expect(verifyAuthorization('Digest garbage', expected, ours)).toBe(false);
  });
});
