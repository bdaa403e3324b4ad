import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import {
  expectErrorBody,
  expectFieldError,
  expectNotFound,
  ISO,
  type Json,
  MISSING_ID,
} from '../assertions.ts';

// Knowledge bases (WIRE.md section 8) through the HTTP layer, once per dialect: bases, sources of
// each type (text, a web page and PDFs served by a local server, an uploaded PDF), re-indexing,
// ingestion errors, and attachment to agents as agent reads show it.

const PAGE = `<!doctype html><html><head><title>Opening hours</title>
<style>body { color: red }</style><script>var tracking = "zebrafish";</script></head>
<body><nav><a href="/">Home</a> | <a href="/menu">Menuitem</a></nav>
<header>Sitewide banner</header>
<main><h1>Opening hours</h1><p>The bakery opens at <a href="/x">seven</a> every weekday morning.</p>
<p>On Sundays the bakery stays closed.</p></main>
<footer>Copyright footerword</footer></body></html>`;

async function makePdf(lines: string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage();
  lines.forEach((line, i) => page.drawText(line, { x: 50, y: 700 - i * 20, font, size: 12 }));
  return Buffer.from(await doc.save());
}

let server: http.Server;
let origin = '';
let pdfBytes: Buffer;

beforeAll(async () => {
  pdfBytes = await makePdf(['The warranty lasts thirty six months.', 'Returns need a receipt.']);
  server = http.createServer((req, res) => {
    switch (req.url) {
      case '/page':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
        return;
      case '/moved':
        res.writeHead(302, { location: '/page' }).end();
        return;
      case '/doc.pdf':
        res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdfBytes);
        return;
      case '/notpdf':
        res.writeHead(200, { 'content-type': 'application/pdf' }).end('hello, not a pdf');
        return;
      case '/big':
        res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.alloc(5 * 1024 * 1024 + 10, 97));
        return;
      case '/slow':
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>late</p>'), 30_000);
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

forEachStore('knowledge bases API', (target) => {
  let t: TestApi;
  let strict: TestApi;

  beforeAll(async () => {
    t = await createTestApi(target, { allowPrivateNetwork: true });
    strict = await createTestApi(target);
  });
  afterAll(async () => {
    await t.close();
    await strict.close();
  });

  const json = (res: { json: () => unknown }) => (res.json() as { response: Json }).response;

  async function newBase(name = 'FAQ', key?: string): Promise<string> {
    const res = await t.call({ method: 'POST', url: '/v2/knowledge_base', payload: { name }, key });
    expect(res.statusCode, res.body).toBe(200);
    return json(res).knowledge_base_id as string;
  }

  async function addSource(baseId: string, payload: Json, api: TestApi = t) {
    return api.call({ method: 'POST', url: `/v2/knowledge_base/${baseId}/sources`, payload });
  }

  async function mustAdd(baseId: string, payload: Json): Promise<Json> {
    const res = await addSource(baseId, payload);
    expect(res.statusCode, res.body).toBe(200);
    return json(res);
  }

  async function newAgent(): Promise<string> {
    const res = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody() });
    expect(res.statusCode, res.body).toBe(200);
    return json(res).model_id as string;
  }

  async function readAgent(id: string): Promise<Json> {
    const res = await t.call({ method: 'GET', url: `/v2/assistants/${id}` });
    expect(res.statusCode, res.body).toBe(200);
    return (json(res).assistants as Json[])[0] as Json;
  }

  const search = async (baseId: string, query: string) =>
    (await t.store.knowledge.search(t.ws.id, [baseId], query, 5)).map((h) => h.text);

  describe('bases', () => {
    it('creates, reads, lists, updates and deletes, isolated by workspace', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/knowledge_base',
        payload: { name: 'Menu', rag_use_condition: 'questions about food' },
      });
      expect(res.statusCode, res.body).toBe(200);
      const { body: createdMessage, ...created } = json(res);
      expect(created).toEqual({
        knowledge_base_id: expect.any(String),
        id: created.knowledge_base_id,
        name: 'Menu',
        rag_use_condition: 'questions about food',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(createdMessage).toMatch(/created/);
      const id = created.knowledge_base_id as string;
      const got = await t.call({ method: 'GET', url: `/v2/knowledge_base/${id}` });
      // The record, and the same record as the one item of the published read.
      expect(json(got)).toEqual({ ...created, total_records: 1, knowledge_bases: [created] });
      expectNotFound(await t.call({ method: 'GET', url: `/v2/knowledge_base/${id}`, key: t.other.key }));

      const second = await newBase('Second');
      const list = await t.call({ method: 'GET', url: '/v2/knowledge_base?limit=1&offset=0' });
      expect(list.statusCode).toBe(200);
      const page = json(list);
      expect(page.pagination).toEqual({ total_records: 2, limit: 1, offset: 0 });
      expect(page.total_records).toBe(2);
      expect((page.knowledge_bases as Json[]).map((b) => b.knowledge_base_id)).toEqual([second]);
      expect((page.knowledge_bases as Json[])[0]?.id).toBe(second);
      const otherList = json(await t.call({ method: 'GET', url: '/v2/knowledge_base', key: t.other.key }));
      expect(otherList.knowledge_bases).toEqual([]);
      expect(otherList.total_records).toBe(0);

      const put = await t.call({
        method: 'PUT',
        url: `/v2/knowledge_base/${id}`,
        payload: { name: 'Menu 2' },
      });
      expect(put.statusCode, put.body).toBe(200);
      expect(json(put)).toMatchObject({
        knowledge_base_id: id,
        id,
        name: 'Menu 2',
        rag_use_condition: 'questions about food',
        body: expect.stringMatching(/updated/),
      });
      expectNotFound(
        await t.call({
          method: 'PUT',
          url: `/v2/knowledge_base/${id}`,
          payload: { name: 'x' },
          key: t.other.key,
        }),
      );

      expectNotFound(await t.call({ method: 'DELETE', url: `/v2/knowledge_base/${id}`, key: t.other.key }));
      const del = await t.call({ method: 'DELETE', url: `/v2/knowledge_base/${id}` });
      expect(del.statusCode).toBe(200);
      expect(json(del)).toEqual({ knowledge_base_id: id, body: expect.stringMatching(/deleted/) });
      expectNotFound(await t.call({ method: 'GET', url: `/v2/knowledge_base/${id}` }));
      expectNotFound(await t.call({ method: 'DELETE', url: `/v2/knowledge_base/${id}` }));
    });

    it('validates bodies and paging', async () => {
      expectFieldError(await t.call({ method: 'POST', url: '/v2/knowledge_base', payload: {} }), [
        'body',
        'name',
      ]);
      expectFieldError(await t.call({ method: 'POST', url: '/v2/knowledge_base', payload: { name: '' } }), [
        'body',
        'name',
      ]);
      expectErrorBody(await t.call({ method: 'GET', url: '/v2/knowledge_base?limit=0' }), 400, 'validation');
      expectErrorBody(await t.call({ method: 'GET', url: '/v2/knowledge_base', key: null }), 401, 'auth');
    });
  });

  describe('sources', () => {
    it('ingests text, lists, re-indexes on update and removes on delete', async () => {
      const base = await newBase();
      const src = await mustAdd(base, {
        type: 'text',
        title: 'Parking',
        content: 'Parking is free in the garage behind the shop.',
      });
      expect(src).toEqual({
        source_id: expect.any(String),
        id: src.source_id,
        knowledge_base_id: base,
        type: 'text',
        title: 'Parking',
        name: 'Parking',
        url: null,
        content_preview: 'Parking is free in the garage behind the shop.',
        status: 'ready',
        error: null,
        characters: 46,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(await search(base, 'where can I park in the garage?')).toEqual([
        'Parking is free in the garage behind the shop.',
      ]);
      const list = await t.call({ method: 'GET', url: `/v2/knowledge_base/${base}/sources` });
      expect(list.statusCode).toBe(200);
      expect(json(list)).toEqual({
        pagination: { total_records: 1, limit: 20, offset: 0 },
        total_records: 1,
        knowledge_base_id: base,
        sources: [src],
      });

      const id = src.source_id as string;
      const put = await t.call({
        method: 'PUT',
        url: `/v2/knowledge_base/${base}/sources/${id}`,
        payload: { type: 'text', content: 'Bicycles may be left at the rack by the entrance.' },
      });
      expect(put.statusCode, put.body).toBe(200);
      // With `type`, an update replaces the source: no name given, none kept.
      expect(json(put)).toMatchObject({
        title: '',
        name: '',
        content_preview: 'Bicycles may be left' + ' at the rack by the entrance.',
      });
      expect(await search(base, 'garage')).toEqual([]);
      expect(await search(base, 'bicycles rack')).toEqual([
        'Bicycles may be left at the rack by the entrance.',
      ]);

      expectNotFound(
        await t.call({
          method: 'PUT',
          url: `/v2/knowledge_base/${base}/sources/${MISSING_ID}`,
          payload: { type: 'text', content: 'x' },
        }),
      );
      expectNotFound(
        await t.call({ method: 'DELETE', url: `/v2/knowledge_base/${base}/sources/${id}`, key: t.other.key }),
      );
      const del = await t.call({ method: 'DELETE', url: `/v2/knowledge_base/${base}/sources/${id}` });
      expect(del.statusCode).toBe(200);
      expect(json(del)).toEqual({ source_id: id, id, body: expect.stringMatching(/deleted/) });
      expect(await search(base, 'bicycles')).toEqual([]);
      expectNotFound(await t.call({ method: 'DELETE', url: `/v2/knowledge_base/${base}/sources/${id}` }));
      expect(
        json(await t.call({ method: 'GET', url: `/v2/knowledge_base/${base}/sources` })).sources,
      ).toEqual([]);
    });

    it('previews the first 200 characters, counted the same in every response and on every dialect', async () => {
      const base = await newBase();
      // Astral characters (two UTF-16 units each) and accents: code points, not UTF-16 units.
      const content = `🚲é ${'x'.repeat(197)}🚲 tail after the preview`;
      const src = await mustAdd(base, { type: 'text', title: 'Bikes', content });
      const preview = `🚲é ${'x'.repeat(197)}`;
      expect([...preview]).toHaveLength(200);
      expect(src.content_preview).toBe(preview);
      expect(src.characters).toBe([...content].length);
      const short = await mustAdd(base, { type: 'text', content: 'Short.' });
      expect(short.content_preview).toBe('Short.');
      const list = json(await t.call({ method: 'GET', url: `/v2/knowledge_base/${base}/sources` }));
      expect(list.sources).toEqual([src, short]);
    });

    it('pages sources (default 20) and filters them by name, whatever the case', async () => {
      const base = await newBase();
      const titles = ['Parking garage', 'Opening hours', 'GARAGE été', '100% off_sale', 'Menu'];
      const ids: string[] = [];
      for (const title of titles) {
        ids.push(
          (await mustAdd(base, { type: 'text', title, content: `About ${title}.` })).source_id as string,
        );
      }
      for (let i = 0; i < 17; i++)
        await mustAdd(base, { type: 'text', title: `Filler ${i}`, content: 'Filler.' });
      const page = async (query: string) => {
        const res = await t.call({ method: 'GET', url: `/v2/knowledge_base/${base}/sources${query}` });
        expect(res.statusCode, res.body).toBe(200);
        return json(res);
      };
      const ofPage = (p: Json) => (p.sources as Json[]).map((x) => x.name);

      const all = await page('');
      expect(all.pagination).toEqual({ total_records: 22, limit: 20, offset: 0 });
      expect(all.total_records).toBe(22);
      expect((all.sources as Json[]).map((x) => x.id)).toEqual(expect.arrayContaining(ids));
      expect(ofPage(all).slice(0, 5)).toEqual(titles);
      expect(ofPage(await page('?offset=20'))).toEqual(['Filler 15', 'Filler 16']);

      const garage = await page('?name=Garage');
      expect(ofPage(garage)).toEqual(['Parking garage', 'GARAGE été']);
      expect(garage.total_records).toBe(2);
      expect(garage.pagination).toEqual({ total_records: 2, limit: 20, offset: 0 });
      expect(ofPage(await page('?name=garage&limit=1&offset=1'))).toEqual(['GARAGE été']);
      expect(ofPage(await page(`?name=${encodeURIComponent('ÉTÉ')}`))).toEqual(['GARAGE été']);
      // No wildcards: `%` and `_` are plain characters.
      expect(ofPage(await page(`?name=${encodeURIComponent('%')}`))).toEqual(['100% off_sale']);
      expect(ofPage(await page(`?name=${encodeURIComponent('f_s')}`))).toEqual(['100% off_sale']);
      expect((await page('?name=nothing-like-this')).sources).toEqual([]);
      expect((await page('?name=')).total_records).toBe(22);

      expectFieldError(await t.call({ method: 'GET', url: `/v2/knowledge_base/${base}/sources?limit=0` }), [
        'query',
        'limit',
      ]);
      expectFieldError(await t.call({ method: 'GET', url: `/v2/knowledge_base/${base}/sources?limit=101` }), [
        'query',
        'limit',
      ]);
      expectFieldError(await t.call({ method: 'GET', url: `/v2/knowledge_base/${base}/sources?offset=-1` }), [
        'query',
        'offset',
      ]);
    });

    it('takes name as the published alias of title, and refuses the two when they differ', async () => {
      const base = await newBase();
      const byName = await mustAdd(base, {
        type: 'text',
        name: ' Returns ',
        content: 'Returns within 30 days.',
      });
      expect(byName).toMatchObject({ title: 'Returns', name: 'Returns' });
      const both = await mustAdd(base, { type: 'text', name: 'Same', title: 'Same', content: 'Same text.' });
      expect(both.name).toBe('Same');
      expectFieldError(await addSource(base, { type: 'text', name: 'One', title: 'Other', content: 'x' }), [
        'body',
        'name',
      ]);
      expectFieldError(await addSource(base, { type: 'text', name: 5, content: 'x' }), ['body', 'name']);
      expectFieldError(await addSource(base, { name: 'No type', content: 'x' }), ['body', 'type']);
      // A web source without a name still takes the page's title.
      const web = await mustAdd(base, { type: 'web', url: `${origin}/page` });
      expect(web).toMatchObject({ name: 'Opening hours', url: `${origin}/page` });
      expect(web.content_preview).toMatch(/^Opening hours/);
    });

    it('updates in the published form: keeping the type and name, or renaming alone', async () => {
      const base = await newBase();
      const src = await mustAdd(base, { type: 'text', name: 'Lockers', content: 'Lockers cost one euro.' });
      const url = `/v2/knowledge_base/${base}/sources/${src.id as string}`;
      const put = (payload: Json) => t.call({ method: 'PUT', url, payload });

      const content = await put({ content: 'Lockers are free for members.' });
      expect(content.statusCode, content.body).toBe(200);
      expect(json(content)).toMatchObject({
        source_id: src.id,
        id: src.id,
        type: 'text',
        name: 'Lockers',
        content_preview: 'Lockers are free for members.',
      });
      expect(await search(base, 'lockers members')).toEqual(['Lockers are free for members.']);

      const chunks = await t.store.knowledge.listChunks(t.ws.id, src.id as string);
      const renamed = await put({ name: 'Locker prices' });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(json(renamed)).toMatchObject({ name: 'Locker prices', title: 'Locker prices', type: 'text' });
      expect(json(renamed).content_preview).toBe('Lockers are free for members.');
      expect(await t.store.knowledge.listChunks(t.ws.id, src.id as string)).toEqual(chunks);

      const both = await put({ name: 'Lockers again', content: 'Lockers cost two euros.' });
      expect(json(both)).toMatchObject({ name: 'Lockers again', content_preview: 'Lockers cost two euros.' });

      // Garbage stays a 400 naming the field, and changes nothing.
      expectFieldError(await put({}), ['body', 'content']);
      expectFieldError(await put({ url: `${origin}/page` }), ['body', 'content']);
      expectFieldError(await put({ name: '' }), ['body', 'name']);
      expectFieldError(await put({ name: 'a', title: 'b' }), ['body', 'name']);
      expectFieldError(await put({ type: 'audio', content: 'x' }), ['body', 'type']);
      expectFieldError(await put({ content: 7 }), ['body', 'content']);
      const list = json(await t.call({ method: 'GET', url: `/v2/knowledge_base/${base}/sources` }));
      expect(list.sources).toEqual([json(both)]);

      const web = await mustAdd(base, { type: 'web', name: 'Hours', url: `${origin}/moved` });
      const webUrl = `/v2/knowledge_base/${base}/sources/${web.id as string}`;
      expectFieldError(await t.call({ method: 'PUT', url: webUrl, payload: { content: 'x' } }), [
        'body',
        'url',
      ]);
      expectFieldError(await t.call({ method: 'PUT', url: webUrl, payload: {} }), ['body', 'url']);
      const refetched = await t.call({ method: 'PUT', url: webUrl, payload: { url: `${origin}/page` } });
      expect(refetched.statusCode, refetched.body).toBe(200);
      expect(json(refetched)).toMatchObject({ type: 'web', name: 'Hours', url: `${origin}/page` });
    });

    it('answers 404 for an unknown base or a source of another base', async () => {
      expectNotFound(await addSource(MISSING_ID, { type: 'text', content: 'x' }));
      expectNotFound(await t.call({ method: 'GET', url: `/v2/knowledge_base/${MISSING_ID}/sources` }));
      const a = await newBase('a');
      const b = await newBase('b');
      const src = await mustAdd(a, { type: 'text', content: 'Alpha text.' });
      expectNotFound(
        await t.call({ method: 'DELETE', url: `/v2/knowledge_base/${b}/sources/${src.source_id as string}` }),
      );
      expectNotFound(await addSource(a, { type: 'text', content: 'x' }, strict), 404);
    });

    it('fetches a web page into clean, searchable text', async () => {
      const base = await newBase();
      const src = await mustAdd(base, { type: 'web', url: `${origin}/moved` });
      expect(src).toMatchObject({
        type: 'web',
        title: 'Opening hours',
        url: `${origin}/moved`,
        status: 'ready',
      });
      const chunks = await t.store.knowledge.listChunks(t.ws.id, src.source_id as string);
      const text = chunks.join('\n');
      expect(text).toContain('The bakery opens at seven every weekday morning.');
      for (const noise of ['zebrafish', 'Menuitem', 'footerword', 'Sitewide', 'color', '/x']) {
        expect(text).not.toContain(noise);
      }
      expect((await search(base, 'when does the bakery open?'))[0]).toContain('opens at seven');
      expect(await search(base, 'zebrafish')).toEqual([]);
    });

    it('extracts the text of a PDF by URL and uploaded', async () => {
      const base = await newBase();
      const byUrl = await mustAdd(base, { type: 'pdf', url: `${origin}/doc.pdf` });
      expect(byUrl).toMatchObject({ type: 'pdf', status: 'ready' });
      expect((await search(base, 'how long is the warranty'))[0]).toContain('thirty six months');

      const other = await makePdf(['Gift cards never expire.']);
      const uploaded = await mustAdd(base, {
        type: 'pdf',
        title: 'Gift cards',
        content_base64: other.toString('base64'),
      });
      expect(uploaded).toMatchObject({ type: 'pdf', title: 'Gift cards', url: null });
      expect((await search(base, 'gift cards expire'))[0]).toContain('Gift cards never expire.');
    });

    it('refuses sources that cannot be ingested with a 400 naming the problem, storing nothing', async () => {
      const base = await newBase();
      const cases: [Json, RegExp][] = [
        [{ type: 'text' }, /content is required/],
        [{ type: 'web' }, /url is required/],
        [{ type: 'pdf' }, /url or body.content_base64 is required/],
        [{ type: 'pdf', content_base64: Buffer.from('plain words').toString('base64') }, /not a PDF/],
        [{ type: 'pdf', url: `${origin}/notpdf` }, /not a PDF/],
        [{ type: 'web', url: `${origin}/missing` }, /HTTP status 404/],
        [{ type: 'web', url: `${origin}/big` }, /larger than the 5242880-byte limit/],
        [{ type: 'web', url: 'http://127.0.0.1:1/' }, /unreachable/],
        [{ type: 'web', url: 'ftp://example.com/x' }, /only http and https/],
        [{ type: 'web', url: `${origin}/doc.pdf` }, /not a web page/],
      ];
      for (const [payload, message] of cases) {
        const d = expectErrorBody(await addSource(base, payload), 400, 'validation');
        expect(d.description, JSON.stringify(payload)).toMatch(message);
      }
      expectFieldError(await addSource(base, { type: 'audio', content: 'x' }), ['body', 'type']);
      const blocked = await strict.call({
        method: 'POST',
        url: '/v2/knowledge_base',
        payload: { name: 'x' },
      });
      const strictBase = json(blocked).knowledge_base_id as string;
      const d = expectErrorBody(
        await addSource(strictBase, { type: 'web', url: `${origin}/page` }, strict),
        400,
        'validation',
      );
      expect(d.description).toMatch(/private, loopback or link-local/);
      expect(
        json(await t.call({ method: 'GET', url: `/v2/knowledge_base/${base}/sources` })).sources,
      ).toEqual([]);
    });

    it('keeps a source unchanged when its update cannot be ingested', async () => {
      const base = await newBase();
      const src = await mustAdd(base, { type: 'text', content: 'Lockers cost one euro.' });
      const res = await t.call({
        method: 'PUT',
        url: `/v2/knowledge_base/${base}/sources/${src.source_id as string}`,
        payload: { type: 'web', url: `${origin}/missing` },
      });
      expectErrorBody(res, 400, 'validation');
      expect(await search(base, 'lockers')).toEqual(['Lockers cost one euro.']);
    });
  });

  describe('attach and detach', () => {
    it('shows the attached base in agent reads, replacing and detaching, with the cached read updating', async () => {
      const agent = await newAgent();
      const a = await newBase('a');
      const b = await newBase('b');
      expect((await readAgent(agent)).knowledge_base_id).toBeNull();
      const v0 = await t.store.workspaces.agentsVersion(t.ws.id);

      const res = await t.call({ method: 'POST', url: `/v2/knowledge_base/${a}/attach?model_id=${agent}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        status: 'ok',
        response: { body: expect.stringMatching(/attached/), knowledge_base_id: a, model_id: agent },
      });
      expect(await t.store.workspaces.agentsVersion(t.ws.id)).toBeGreaterThan(v0);
      expect((await readAgent(agent)).knowledge_base_id).toBe(a);
      const list = json(await t.call({ method: 'GET', url: '/v2/assistants/' }));
      expect((list.assistants as Json[]).find((x) => x.model_id === agent)?.knowledge_base_id).toBe(a);

      const replaced = await t.call({
        method: 'POST',
        url: `/v2/knowledge_base/${b}/attach?model_id=${agent}`,
      });
      expect(json(replaced).body).toContain(`replacing knowledge base ${a}`);
      expect((await readAgent(agent)).knowledge_base_id).toBe(b);

      const notAttached = await t.call({
        method: 'POST',
        url: `/v2/knowledge_base/${a}/detach`,
        payload: { model_id: agent },
      });
      expect(notAttached.statusCode).toBe(200);
      expect((await readAgent(agent)).knowledge_base_id).toBe(b);

      const det = await t.call({
        method: 'POST',
        url: `/v2/knowledge_base/${b}/detach`,
        payload: { model_id: agent },
      });
      expect(det.statusCode, det.body).toBe(200);
      expect(det.json()).toEqual({
        status: 'ok',
        response: { body: expect.stringMatching(/detached/), model_id: agent, knowledge_base_id: b },
      });
      expect(json(notAttached).body).toMatch(/not attached/);
      expect((await readAgent(agent)).knowledge_base_id).toBeNull();

      // Deleting an attached base detaches it.
      await t.call({ method: 'POST', url: `/v2/knowledge_base/${a}/attach?model_id=${agent}` });
      expect((await readAgent(agent)).knowledge_base_id).toBe(a);
      await t.call({ method: 'DELETE', url: `/v2/knowledge_base/${a}` });
      expect((await readAgent(agent)).knowledge_base_id).toBeNull();
    });

    it('answers 404 for an unknown base or agent and 400 without model_id', async () => {
      const agent = await newAgent();
      const base = await newBase();
      expectNotFound(
        await t.call({ method: 'POST', url: `/v2/knowledge_base/${MISSING_ID}/attach?model_id=${agent}` }),
      );
      expectNotFound(
        await t.call({ method: 'POST', url: `/v2/knowledge_base/${base}/attach?model_id=${MISSING_ID}` }),
      );
      expectNotFound(
        await t.call({
          method: 'POST',
          url: `/v2/knowledge_base/${base}/attach?model_id=${agent}`,
          key: t.other.key,
        }),
      );
      expectFieldError(await t.call({ method: 'POST', url: `/v2/knowledge_base/${base}/attach` }), [
        'query',
        'model_id',
      ]);
      expectNotFound(
        await t.call({
          method: 'POST',
          url: `/v2/knowledge_base/${MISSING_ID}/detach`,
          payload: { model_id: agent },
        }),
      );
      expectNotFound(
        await t.call({
          method: 'POST',
          url: `/v2/knowledge_base/${base}/detach`,
          payload: { model_id: MISSING_ID },
        }),
      );
      expectFieldError(
        await t.call({ method: 'POST', url: `/v2/knowledge_base/${base}/detach`, payload: {} }),
        ['body', 'model_id'],
      );
    });
  });
});
