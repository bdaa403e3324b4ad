import { describe, expect, it } from 'vitest';
import {
  MAX_MESSAGE_BYTES,
  parseSipMessage,
  responseTo,
  serializeSipMessage,
  type SipRequest,
} from './message.ts';
import { e164Of, parseNameAddr, parseSipUri, tagOf } from './uri.ts';

const invite = [
  'INVITE sip:+14155550100@127.0.0.1:5060 SIP/2.0',
  'Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1;rport',
  'v: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK-0, SIP/2.0/UDP 10.0.0.2;branch=z9hG4bK-00',
  'f: "Ann" <sip:+14155551234@127.0.0.1:5070>;tag=abc',
  't: <sip:+14155550100@127.0.0.1>',
  'i: call-1@127.0.0.1',
  'CSeq: 1 INVITE',
  'Max-Forwards: 70',
  'Subject: long',
  '  continued',
  'Content-Type: application/sdp',
  'Content-Length: 4',
  '',
  'v=0\r\npadding',
].join('\r\n');

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('SIP messages', () => {
  it('reads a request with compact headers, folded lines and a body cut at Content-Length', () => {
    const parsed = parseSipMessage(bytes(invite));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok || parsed.message.kind !== 'request') return;
    const { message } = parsed;
    expect(message.method).toBe('INVITE');
    expect(message.uri).toBe('sip:+14155550100@127.0.0.1:5060');
    expect(message.headers.getAll('via')).toHaveLength(3);
    expect(message.headers.get('call-id')).toBe('call-1@127.0.0.1');
    expect(message.headers.get('subject')).toBe('long continued');
    expect(message.body).toBe('v=0\r');
    expect(tagOf(message.headers.get('from'))).toBe('abc');
  });

  it('writes what it reads back, with a Content-Length from the body', () => {
    const parsed = parseSipMessage(bytes(invite));
    if (!parsed.ok) throw new Error(parsed.error);
    const again = parseSipMessage(serializeSipMessage(parsed.message));
    expect(again.ok && again.message.body).toBe('v=0\r');
    expect(serializeSipMessage(parsed.message).toString()).toContain('Content-Length: 4\r\n\r\n');
  });

  it.each([
    ['a start line that is no SIP', 'HELLO world\r\n\r\n', 'bad_start_line'],
    [
      'a Content-Length beyond the bytes',
      invite.replace('Content-Length: 4', 'Content-Length: 400'),
      'bad_content_length',
    ],
    [
      'a Content-Length that is no number',
      invite.replace('Content-Length: 4', 'Content-Length: -1'),
      'bad_content_length',
    ],
    ['a CSeq whose method differs', invite.replace('CSeq: 1 INVITE', 'CSeq: 1 BYE'), 'bad_cseq'],
    ['a CSeq without a number', invite.replace('CSeq: 1 INVITE', 'CSeq: x INVITE'), 'bad_cseq'],
    ['no Call-ID', invite.replace('i: call-1@127.0.0.1\r\n', ''), 'missing_header'],
    ['a header line without a colon', invite.replace('Max-Forwards: 70', 'Max-Forwards 70'), 'bad_header'],
    [
      'an oversized header',
      invite.replace('Subject: long', `Subject: ${'x'.repeat(5000)}`),
      'header_too_long',
    ],
    ['binary garbage', '\u0000\u0001\u0002garbage', 'not_text'],
  ])('refuses %s', (_name, text, error) => {
    const parsed = parseSipMessage(bytes(text));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toBe(error);
  });

  it('refuses a message larger than the limit before reading it', () => {
    const parsed = parseSipMessage(Buffer.alloc(MAX_MESSAGE_BYTES + 1, 0x41));
    expect(parsed).toMatchObject({ ok: false, error: 'too_large' });
  });

  it('keeps what it could read of a bad request, so it can be answered 400', () => {
    const parsed = parseSipMessage(bytes(invite.replace('CSeq: 1 INVITE', 'CSeq: 1 BYE')));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.partial?.kind).toBe('request');
    const response = responseTo(parsed.partial as SipRequest, 400);
    expect(response.headers.getAll('via')).toHaveLength(3);
    expect(response.headers.get('call-id')).toBe('call-1@127.0.0.1');
  });

  it('answers with the request Via, From, Call-ID and CSeq, adding a To tag once', () => {
    const parsed = parseSipMessage(bytes(invite));
    if (!parsed.ok || parsed.message.kind !== 'request') throw new Error('unparsed');
    const response = responseTo(parsed.message, 180, { toTag: 'xyz' });
    expect(tagOf(response.headers.get('to'))).toBe('xyz');
    expect(response.reason).toBe('Ringing');
    expect(response.headers.get('cseq')).toBe('1 INVITE');
    const text = serializeSipMessage(response).toString();
    expect(text.startsWith('SIP/2.0 180 Ringing\r\n')).toBe(true);
  });
});

describe('SIP URIs', () => {
  it('reads users, hosts, ports and parameters', () => {
    expect(parseSipUri('sip:+14155550100@Example.com:5080;transport=TCP;lr')).toMatchObject({
      scheme: 'sip',
      user: '+14155550100',
      host: 'example.com',
      port: 5080,
    });
    expect(parseSipUri('sip:[::1]:5060')?.host).toBe('[::1]');
    expect(parseSipUri('http://x')).toBeNull();
    expect(parseSipUri('sip:x@host:99999')).toBeNull();
  });

  it('reads name-addr values with and without brackets', () => {
    expect(parseNameAddr('"Ann B" <sip:ann@h;transport=tcp>;tag=1;x')?.params.get('tag')).toBe('1');
    expect(parseNameAddr('sip:ann@h;tag=2')?.params.get('tag')).toBe('2');
    expect(parseNameAddr('"Ann" <sip:ann@h')).toBeNull();
  });

  it('finds E.164 numbers in user parts', () => {
    const uri = (text: string) =>
      parseSipUri(text) ?? { scheme: 'sip' as const, user: '', host: '', port: null, params: new Map() };
    expect(e164Of(uri('sip:+14155550100@h'))).toBe('+14155550100');
    expect(e164Of(uri('sip:14155550100@h'))).toBe('+14155550100');
    expect(e164Of(uri('sip:alice@h'))).toBeNull();
  });
});
