import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceError, fetchSource, htmlToText, pdfToText } from './sources.ts';

// Fetching and converting knowledge sources: the outbound rules and limits.

let server: http.Server;
let origin = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/slow') {
      setTimeout(() => res.end('late'), 2_000);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>0123456789</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('fetchSource', () => {
  it('refuses loopback and private addresses unless allowed', async () => {
    await expect(fetchSource(`${origin}/`)).rejects.toThrow(/private, loopback or link-local/);
    await expect(fetchSource('http://169.254.169.254/latest')).rejects.toThrow(SourceError);
    const ok = await fetchSource(`${origin}/`, { allowPrivateNetwork: true });
    expect(ok.body.toString()).toBe('<p>0123456789</p>');
  });

  it('enforces the timeout and the size cap', async () => {
    await expect(
      fetchSource(`${origin}/slow`, { allowPrivateNetwork: true, timeoutMs: 100 }),
    ).rejects.toThrow(/did not answer within 100 ms/);
    await expect(fetchSource(`${origin}/`, { allowPrivateNetwork: true, maxBytes: 5 })).rejects.toThrow(
      /larger than the 5-byte limit/,
    );
  });
});

describe('conversion', () => {
  it('drops scripts, styles and navigation from HTML', () => {
    const text = htmlToText(
      '<html><head><style>p{}</style><script>x()</script></head><body><nav>Menu</nav><p>Hi <a href="/a">there</a></p></body></html>',
    );
    expect(text.trim()).toBe('Hi there');
  });

  it('rejects bytes that are not a PDF', async () => {
    await expect(pdfToText(Buffer.from('nope'), 'the file')).rejects.toThrow('the file is not a PDF');
    await expect(pdfToText(Buffer.from('%PDF-1.4 garbage'), 'the file')).rejects.toThrow(
      /not a readable PDF/,
    );
  });
});
