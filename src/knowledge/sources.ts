import { convert } from 'html-to-text';
import { extractText, getDocumentProxy } from 'unpdf';
import { OutboundHttpError, createSafeFetch, type HttpResponse } from '../core/index.ts';

// Turning a web page or a PDF into the text a knowledge source stores. Fetching is the one safe
// fetch of src/core/http.ts (http/https only; every resolved address checked at connect time,
// private/loopback/link-local refused unless allowed; redirects re-checked), with this module's
// own limits: the body as bytes (a PDF is binary), a larger size cap that refuses instead of
// cutting, and a timeout over the whole exchange.

export const MAX_SOURCE_BYTES = 5 * 1024 * 1024;
export const SOURCE_FETCH_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 3;
const REDIRECTS = [301, 302, 303, 307, 308];

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

/** The outbound rule a fetch broke, as a message naming the source's URL. */
function sourceErrorOf(err: unknown, rawUrl: string, timeoutMs: number): unknown {
  if (!(err instanceof OutboundHttpError)) return err;
  switch (err.reason) {
    case 'bad_url':
      return new SourceError(err.message);
    case 'blocked_address':
      return new SourceError(
        `${rawUrl} leads to a private, loopback or link-local address, which is not allowed (${err.message})`,
      );
    case 'timeout':
      return new SourceError(`${rawUrl} did not answer within ${timeoutMs} ms`);
    case 'too_many_redirects':
      return new SourceError(`${rawUrl}: too many redirects`);
    case 'network':
      return new SourceError(`${rawUrl} is unreachable (${err.message})`);
  }
}

/** GETs `rawUrl` under the outbound rules; throws SourceError naming the problem. */
export async function fetchSource(rawUrl: string, options: SourceFetchOptions = {}): Promise<Fetched> {
  const timeoutMs = options.timeoutMs ?? SOURCE_FETCH_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_SOURCE_BYTES;
  const fetch = createSafeFetch({
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    timeoutMs,
    maxBytes,
    maxRedirects: MAX_REDIRECTS,
  });
  let res: HttpResponse;
  try {
    res = await fetch({
      url: rawUrl,
      method: 'GET',
      headers: { accept: 'text/html, application/pdf, */*;q=0.5', 'user-agent': 'Parley knowledge fetcher' },
    });
  } catch (err) {
    throw sourceErrorOf(err, rawUrl, timeoutMs);
  }
  if (res.truncated) throw new SourceError(`${res.url} is larger than the ${maxBytes}-byte limit`);
  if (res.status < 200 || res.status > 299 || REDIRECTS.includes(res.status)) {
    throw new SourceError(`${res.url} answered with HTTP status ${res.status}`);
  }
  return {
    status: res.status,
    contentType: res.headers['content-type'] ?? '',
    body: res.bytes ?? Buffer.from(res.body),
  };
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
