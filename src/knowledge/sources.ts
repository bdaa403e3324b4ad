import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { convert } from 'html-to-text';
import { extractText, getDocumentProxy } from 'unpdf';
import { isBlockedAddress } from '../actions/index.ts';

// Turning a web page or a PDF into the text a knowledge source stores. Fetching follows the
// actions' outbound rules (http/https only; every resolved address checked at connect time,
// private/loopback/link-local refused unless allowed; redirects re-checked), but keeps the body
// as bytes (a PDF is binary), with a size cap and a timeout over the whole exchange.

export const MAX_SOURCE_BYTES = 5 * 1024 * 1024;
export const SOURCE_FETCH_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 3;

/** Why a source could not be ingested; the API answers 400 with the message. */
export class SourceError extends Error {
  override name = 'SourceError';
}

export interface SourceFetchOptions {
  allowPrivateNetwork?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface Fetched {
  status: number;
  contentType: string;
  body: Buffer;
}

function once(url: URL, allow: boolean, signal: AbortSignal, maxBytes: number) {
  return new Promise<Fetched & { location?: string }>((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) && !allow && isBlockedAddress(host)) {
      reject(
        new SourceError(`${url.href} is a private, loopback or link-local address, which is not allowed`),
      );
      return;
    }
    const lookup = (
      hostname: string,
      opts: dns.LookupOptions,
      cb: (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void,
    ) => {
      dns.promises.lookup(hostname, { all: true, verbatim: true }).then(
        (addresses) => {
          const bad = allow ? undefined : addresses.find((a) => isBlockedAddress(a.address));
          const first = addresses[0];
          if (bad)
            cb(
              new SourceError(
                `${hostname} resolves to a private address (${bad.address}), which is not allowed`,
              ),
              '',
            );
          else if (!first) cb(new SourceError(`${hostname} did not resolve`), '');
          else if (opts.all) cb(null, addresses);
          else cb(null, first.address, first.family);
        },
        (err: Error) => cb(err, ''),
      );
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'GET',
      headers: { accept: 'text/html, application/pdf, */*;q=0.5', 'user-agent': 'Parley knowledge fetcher' },
      lookup: lookup as unknown as net.LookupFunction,
      signal,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const contentType = String(res.headers['content-type'] ?? '');
      const location = res.headers.location;
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        res.destroy();
        reject(new SourceError(`${url.href} is larger than the ${maxBytes}-byte limit`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          res.destroy();
          reject(new SourceError(`${url.href} is larger than the ${maxBytes}-byte limit`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () =>
        resolve({ status, contentType, body: Buffer.concat(chunks), ...(location ? { location } : {}) }),
      );
      res.on('error', reject);
    });
    req.end();
  });
}

/** GETs `rawUrl` under the outbound rules; throws SourceError naming the problem. */
export async function fetchSource(rawUrl: string, options: SourceFetchOptions = {}): Promise<Fetched> {
  const allow = options.allowPrivateNetwork ?? false;
  const timeoutMs = options.timeoutMs ?? SOURCE_FETCH_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_SOURCE_BYTES;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new SourceError(`not a valid URL: ${rawUrl}`);
  }
  const signal = AbortSignal.timeout(timeoutMs);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new SourceError(`only http and https URLs are allowed, not ${url.protocol}`);
    }
    let res: Fetched & { location?: string };
    try {
      res = await once(url, allow, signal, maxBytes);
    } catch (err) {
      if (err instanceof SourceError) throw err;
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof SourceError) throw cause;
      if (signal.aborted) throw new SourceError(`${url.href} did not answer within ${timeoutMs} ms`);
      const e = err as NodeJS.ErrnoException;
      throw new SourceError(`${url.href} is unreachable: ${e.code ?? e.message}`);
    }
    if ([301, 302, 303, 307, 308].includes(res.status) && res.location !== undefined) {
      if (hop >= MAX_REDIRECTS) throw new SourceError(`${rawUrl}: too many redirects`);
      url = new URL(res.location, url);
      continue;
    }
    if (res.status < 200 || res.status > 299) {
      throw new SourceError(`${url.href} answered with HTTP status ${res.status}`);
    }
    return res;
  }
}

/** The readable text of an HTML page: no scripts, styles, navigation, headers, footers or link targets. */
export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'nav', format: 'skip' },
      { selector: 'header', format: 'skip' },
      { selector: 'footer', format: 'skip' },
      { selector: 'aside', format: 'skip' },
      { selector: 'form', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'noscript', format: 'skip' },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
      { selector: 'h4', options: { uppercase: false } },
      { selector: 'h5', options: { uppercase: false } },
      { selector: 'h6', options: { uppercase: false } },
      { selector: 'table', format: 'dataTable' },
    ],
  });
}

/** The page's <title>, if any. */
export function htmlTitle(html: string): string {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  return m?.[1] ? convert(m[1], { wordwrap: false }).trim() : '';
}

const PDF_MAGIC = Buffer.from('%PDF-');

/** The text of a PDF's pages; SourceError when the bytes are not a readable PDF. */
export async function pdfToText(bytes: Uint8Array, what = 'the file'): Promise<string> {
  const head = Buffer.from(bytes.subarray(0, 1024));
  if (head.indexOf(PDF_MAGIC) < 0) throw new SourceError(`${what} is not a PDF`);
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    const { text } = await extractText(pdf, { mergePages: true });
    return text;
  } catch (err) {
    throw new SourceError(`${what} is not a readable PDF: ${(err as Error).message}`);
  }
}
