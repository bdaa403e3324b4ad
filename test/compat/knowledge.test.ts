import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { expectFieldError, ISO, type Json, okResponse } from '../assertions.ts';

// Drop-in compatibility of the knowledge-base API: a client written for the published API sends
// its requests as that API documents them (sources named by `name`, attach's `model_id` in the
// query, `content-type: application/json` with an empty body on body-less operations) and reads
// the fields the published responses carry (`knowledge_bases[0].id`, `total_records`, `body`,
// `sources[i].id/name/content_preview` ...). The expected shapes are written out here, not taken
// from Parley's schemas.

const PAGE = `<!doctype html><html><head><title>Delivery</title></head>
<body><main><p>We deliver within the city on weekdays before noon.</p></main></body></html>`;

let server: http.Server;
let origin = '';

beforeAll(async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('Invoices are sent by email.', { x: 50, y: 700, font, size: 12 });
  const pdf = Buffer.from(await doc.save());
  server = http.createServer((req, res) => {
    if (req.url === '/delivery') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else if (req.url === '/invoices.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** How HTTP clients of the published API send a request without a body. */
const EMPTY_JSON = { headers: { 'content-type': 'application/json' }, payload: '' };

forEachStore('knowledge bases, as a client of the published API uses them', (target) => {
  let t: TestApi;

  beforeAll(async () => {
    t = await createTestApi(target, { allowPrivateNetwork: true });
  });
  afterAll(async () => {
    await t.close();
  });

  /** The envelope every knowledge-base success carries; returns `response`. */

  async function createBase(name: string, ragUseCondition = ''): Promise<string> {
    const res = await t.call({
      method: 'POST',
      url: '/v2/knowledge_base',
      payload: { name, rag_use_condition: ragUseCondition },
    });
    const response = okResponse(res);
    expect(response).toMatchObject({ body: expect.any(String), knowledge_base_id: expect.any(String) });
    return response.knowledge_base_id as string;
  }

  it('creates, reads (as knowledge_bases[0]), lists (25 by default), updates and deletes bases', async () => {
    const id = await createBase('Shop FAQ', 'questions about the shop');

    const got = okResponse(await t.call({ method: 'GET', url: `/v2/knowledge_base/${id}` }));
    expect(got.total_records).toBe(1);
    expect(got.knowledge_bases).toEqual([
      expect.objectContaining({ id, name: 'Shop FAQ', rag_use_condition: 'questions about the shop' }),
    ]);

    const updated = okResponse(
      await t.call({
        method: 'PUT',
        url: `/v2/knowledge_base/${id}`,
        payload: { name: 'Shop FAQ v2', rag_use_condition: 'always' },
      }),
    );
    expect(updated).toMatchObject({ body: expect.any(String), knowledge_base_id: id });
    const reread = okResponse(await t.call({ method: 'GET', url: `/v2/knowledge_base/${id}` }));
    expect((reread.knowledge_bases as Json[])[0]).toMatchObject({
      id,
      name: 'Shop FAQ v2',
      rag_use_condition: 'always',
    });

    for (let i = 0; i < 25; i++) await createBase(`Base ${i}`);
    const list = okResponse(await t.call({ method: 'GET', url: '/v2/knowledge_base' }));
    expect(list.total_records).toBe(26);
    const items = list.knowledge_bases as Json[];
    expect(items).toHaveLength(25);
    for (const item of items) {
      expect(item).toMatchObject({
        id: expect.any(String),
        name: expect.any(String),
        rag_use_condition: expect.any(String),
      });
    }
    const rest = okResponse(await t.call({ method: 'GET', url: '/v2/knowledge_base?limit=25&offset=25' }));
    expect(rest.total_records).toBe(26);
    expect((rest.knowledge_bases as Json[]).map((b) => b.id)).toEqual([id]);

    const del = await t.call({ method: 'DELETE', url: `/v2/knowledge_base/${id}`, ...EMPTY_JSON });
    okResponse(del);
    expect((await t.call({ method: 'GET', url: `/v2/knowledge_base/${id}` })).statusCode).toBe(404);
    expect(
      okResponse(await t.call({ method: 'GET', url: '/v2/knowledge_base?limit=100' })).total_records,
    ).toBe(25);
  });

  it('attaches with model_id in the query and no body, and detaches with model_id in the body', async () => {
    const agent = okResponse(await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody() }))
      .model_id as string;
    const id = await createBase('Agent knowledge');

    const attached = okResponse(
      await t.call({
        method: 'POST',
        url: `/v2/knowledge_base/${id}/attach?model_id=${agent}`,
        ...EMPTY_JSON,
      }),
    );
    expect(attached).toMatchObject({ body: expect.any(String), knowledge_base_id: id, model_id: agent });
    const read = okResponse(await t.call({ method: 'GET', url: `/v2/assistants/${agent}` }));
    expect((read.assistants as Json[])[0]?.knowledge_base_id).toBe(id);

    const detached = okResponse(
      await t.call({ method: 'POST', url: `/v2/knowledge_base/${id}/detach`, payload: { model_id: agent } }),
    );
    expect(detached).toMatchObject({ body: expect.any(String), model_id: agent });
    const after = okResponse(await t.call({ method: 'GET', url: `/v2/assistants/${agent}` }));
    expect((after.assistants as Json[])[0]?.knowledge_base_id).toBeNull();

    // Missing model_id: a 400 naming it, where each operation takes it.
    expectFieldError(
      await t.call({ method: 'POST', url: `/v2/knowledge_base/${id}/attach`, ...EMPTY_JSON }),
      ['query', 'model_id'],
    );
    expectFieldError(
      await t.call({ method: 'POST', url: `/v2/knowledge_base/${id}/detach`, ...EMPTY_JSON }),
      ['body'],
    );
    expectFieldError(await t.call({ method: 'POST', url: `/v2/knowledge_base/${id}/detach`, payload: {} }), [
      'body',
      'model_id',
    ]);
  });

  it('adds, lists (with previews, by name, 20 by default), updates and deletes sources', async () => {
    const kb = await createBase('Sources');
    const sourcesUrl = `/v2/knowledge_base/${kb}/sources`;
    const add = async (payload: Json) => {
      const response = okResponse(await t.call({ method: 'POST', url: sourcesUrl, payload }));
      expect(typeof response.source_id).toBe('string');
      return response.source_id as string;
    };

    const longText = `Opening hours: ${'Monday to Friday, nine to five. '.repeat(10)}`;
    const textId = await add({ name: 'Hours', type: 'text', content: longText });
    const webId = await add({ name: 'Delivery page', type: 'web', url: `${origin}/delivery` });
    const pdfId = await add({ name: 'Invoices', type: 'pdf', url: `${origin}/invoices.pdf` });

    const list = okResponse(await t.call({ method: 'GET', url: sourcesUrl }));
    expect(list.total_records).toBe(3);
    expect(list.knowledge_base_id).toBe(kb);
    const sources = list.sources as Json[];
    expect(sources.map((s) => s.id)).toEqual([textId, webId, pdfId]);
    expect(sources.map((s) => s.name)).toEqual(['Hours', 'Delivery page', 'Invoices']);
    expect(sources.map((s) => s.type)).toEqual(['text', 'web', 'pdf']);
    for (const s of sources) {
      expect(s.created_at).toMatch(ISO);
      expect(s.updated_at).toMatch(ISO);
      expect(typeof s.content_preview).toBe('string');
    }
    // The preview is the start of the extracted text, 200 characters at most.
    expect(sources[0]?.content_preview).toBe(longText.trim().slice(0, 200));
    expect(sources[1]?.content_preview).toContain('We deliver within the city');
    expect(sources[2]?.content_preview).toContain('Invoices are sent by email.');
    expect(sources[1]?.url).toBe(`${origin}/delivery`);
    expect(sources[2]?.url).toBe(`${origin}/invoices.pdf`);
    // Parley's `url` of a text source is null (docs/api-notes.md "Knowledge bases").
    expect(sources[0]?.url).toBeNull();

    const byName = okResponse(await t.call({ method: 'GET', url: `${sourcesUrl}?name=delivery` }));
    expect(byName.total_records).toBe(1);
    expect((byName.sources as Json[]).map((s) => s.id)).toEqual([webId]);

    // Update in the published form: no `type`; the name can change with the text or alone.
    const putText = okResponse(
      await t.call({
        method: 'PUT',
        url: `${sourcesUrl}/${textId}`,
        payload: { name: 'Opening hours', content: 'We open at eight on Saturdays.' },
      }),
    );
    expect(putText.source_id).toBe(textId);
    const putWeb = okResponse(
      await t.call({ method: 'PUT', url: `${sourcesUrl}/${webId}`, payload: { url: `${origin}/delivery` } }),
    );
    expect(putWeb.source_id).toBe(webId);
    const rename = okResponse(
      await t.call({ method: 'PUT', url: `${sourcesUrl}/${pdfId}`, payload: { name: 'Billing' } }),
    );
    expect(rename.source_id).toBe(pdfId);
    const afterPut = okResponse(await t.call({ method: 'GET', url: sourcesUrl })).sources as Json[];
    expect(afterPut.map((s) => [s.id, s.name, s.content_preview])).toEqual([
      [textId, 'Opening hours', 'We open at eight on Saturdays.'],
      [webId, 'Delivery page', expect.stringContaining('We deliver within the city')],
      [pdfId, 'Billing', expect.stringContaining('Invoices are sent by email.')],
    ]);

    const deleted = okResponse(
      await t.call({ method: 'DELETE', url: `${sourcesUrl}/${webId}`, ...EMPTY_JSON }),
    );
    expect(deleted).toMatchObject({ body: expect.any(String), id: webId });
    const left = okResponse(await t.call({ method: 'GET', url: sourcesUrl }));
    expect(left.total_records).toBe(2);
    expect((left.sources as Json[]).map((s) => s.id)).toEqual([textId, pdfId]);

    for (let i = 0; i < 19; i++) await add({ name: `Note ${i}`, type: 'text', content: `Note number ${i}.` });
    const firstPage = okResponse(await t.call({ method: 'GET', url: sourcesUrl }));
    expect(firstPage.total_records).toBe(21);
    expect(firstPage.sources).toHaveLength(20);
    const second = okResponse(await t.call({ method: 'GET', url: `${sourcesUrl}?offset=20` }));
    expect((second.sources as Json[]).map((s) => s.name)).toEqual(['Note 18']);
  });

  describe('bad input stays a 400 naming the field', () => {
    it('refuses unknown types, wrong types and missing text', async () => {
      const kb = await createBase('Strict');
      const url = `/v2/knowledge_base/${kb}/sources`;
      expectFieldError(
        await t.call({ method: 'POST', url, payload: { name: 'x', type: 'video', content: 'x' } }),
        ['body', 'type'],
      );
      expectFieldError(
        await t.call({ method: 'POST', url, payload: { name: ['x'], type: 'text', content: 'x' } }),
        ['body', 'name'],
      );
      expectFieldError(await t.call({ method: 'POST', url, payload: { name: 'x', type: 'text' } }), [
        'body',
        'content',
      ]);
      expectFieldError(await t.call({ method: 'POST', url, payload: { name: 'x', type: 'web' } }), [
        'body',
        'url',
      ]);
      expectFieldError(await t.call({ method: 'GET', url: `${url}?limit=abc` }), ['query', 'limit']);
      expectFieldError(await t.call({ method: 'GET', url: '/v2/knowledge_base?offset=-5' }), [
        'query',
        'offset',
      ]);
      expectFieldError(await t.call({ method: 'POST', url: '/v2/knowledge_base', payload: { name: 42 } }), [
        'body',
        'name',
      ]);
      expect((okResponse(await t.call({ method: 'GET', url })).sources as Json[]).length).toBe(0);
    });
  });
});
