import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import type { Json } from '../assertions.ts';

// Drop-in compatibility of the contacts API: a client written for the published API creates,
// searches, reads, updates and deletes a contact exactly as that API documents it (`name`,
// `phone_number`, `email`, `contact_metadata` in the body; `search` with the number; PATCH for
// updates; `content-type: application/json` with an empty body on DELETE) and reads the fields
// the published responses carry. The expected shapes are written out here.

/** How HTTP clients of the published API send a request without a body. */
const EMPTY_JSON = { headers: { 'content-type': 'application/json' }, payload: '' };

/** The contact fields the published document lists, with their published types. */
function expectPublishedContact(c: Json): void {
  for (const field of ['id', 'name', 'phone_number', 'email', 'workspace_id', 'created_at', 'updated_at']) {
    expect(typeof c[field], field).toBe('string');
  }
  expect(typeof c.contact_metadata).toBe('object');
  expect(c.contact_metadata).not.toBeNull();
  expect(Array.isArray(c.memory_store_ids)).toBe(true);
}

forEachStore('contacts, as a client of the published API uses them', (target) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  it('creates, finds, reads, updates and deletes a contact', async () => {
    // Create: the published answer is {status, response: {id}}.
    const created = await t.call({
      method: 'POST',
      url: '/v2/contacts',
      payload: {
        name: 'Jane Doe',
        phone_number: '+14155550143',
        email: 'jane@example.com',
        contact_metadata: { company: 'Acme' },
      },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().status).toBe('ok');
    const id = created.json().response.id as string;
    expect(typeof id).toBe('string');

    // List with search (the number, its + URL-encoded): {status, response: {items, total, page_size, page_number}}.
    const found = await t.call({ method: 'GET', url: '/v2/contacts?search=%2B14155550143' });
    expect(found.statusCode, found.body).toBe(200);
    const page = found.json().response as Json;
    expect(typeof page.total).toBe('number');
    expect(Number.isInteger(page.page_size)).toBe(true);
    expect(Number.isInteger(page.page_number)).toBe(true);
    const items = page.items as Json[];
    expect(items.map((c) => c.id)).toEqual([id]);
    expectPublishedContact(items[0]!);
    expect(items[0]).toMatchObject({
      name: 'Jane Doe',
      phone_number: '+14155550143',
      email: 'jane@example.com',
      contact_metadata: { company: 'Acme' },
    });

    // Get: {status, response: <contact>}.
    const read = await t.call({ method: 'GET', url: `/v2/contacts/${id}` });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().status).toBe('ok');
    expectPublishedContact(read.json().response);
    expect(read.json().response).toMatchObject({ id, workspace_id: t.ws.id });

    // Update with PATCH: the published answer is {status}.
    const updated = await t.call({
      method: 'PATCH',
      url: `/v2/contacts/${id}`,
      payload: { name: 'Jane Roe', contact_metadata: { company: 'Acme Corp' } },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().status).toBe('ok');
    const after = (await t.call({ method: 'GET', url: `/v2/contacts/${id}` })).json().response as Json;
    expect(after).toMatchObject({ name: 'Jane Roe', contact_metadata: { company: 'Acme Corp' } });

    // Delete, as clients send it: a JSON content type and an empty body. The answer is {status}.
    const deleted = await t.call({ method: 'DELETE', url: `/v2/contacts/${id}`, ...EMPTY_JSON });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json().status).toBe('ok');
    expect((await t.call({ method: 'GET', url: `/v2/contacts/${id}` })).statusCode).toBe(404);
  });

  it('sends email as a string (empty when none), never null', async () => {
    const created = await t.call({
      method: 'POST',
      url: '/v2/contacts',
      payload: { name: 'No Mail', phone_number: '+14155550144' },
    });
    const id = created.json().response.id as string;
    const read = (await t.call({ method: 'GET', url: `/v2/contacts/${id}` })).json().response as Json;
    expectPublishedContact(read);
    expect(read.email).toBe('');
  });

  it('lists without any parameter', async () => {
    const res = await t.call({ method: 'GET', url: '/v2/contacts' });
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json().response as Json;
    expect(Array.isArray(page.items)).toBe(true);
    for (const c of page.items as Json[]) expectPublishedContact(c);
  });
});
