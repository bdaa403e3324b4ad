import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FINAL_STATUSES } from '../../src/calls/index.ts';
import { wavHeader } from '../../src/voice/index.ts';
import { expectErrorBody, expectFieldError, expectNotFound } from '../assertions.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// A call's recording over the API: served to its workspace's key only, whole or by byte range;
// deleting a finished call deletes its recording; bad ids, missing recordings, ranges outside the
// file and calls still running get a 4xx that says why. (The recording itself is made in the sim
// call with the offline speech: test/voice/sim-call.test.ts.)

forEachStore('call recordings', (target) => {
  let t: TestApi;
  let agentId: string;

  beforeAll(async () => {
    t = await createTestApi(target);
    const res = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody() });
    agentId = res.json().response.model_id as string;
  });
  afterAll(() => t.close());

  /** A stored call of `ws` in `status`, with a recording of `data` bytes when given. */
  async function storedCall(status: string, data?: Uint8Array) {
    const call = await t.store.calls.create(t.ws.id, {
      agentId,
      type: 'outbound',
      status: 'pending',
      phoneFrom: '+14155550100',
      phoneTo: '+14155551234',
      leadName: 'Ann',
    });
    if (status !== 'pending') await t.store.calls.update(t.ws.id, call.id, ['pending'], { status });
    if (data) {
      const writer = await t.recordings.create(t.ws.id, call.id);
      await writer.write(data);
      await writer.finish(wavHeader(data.length - 44));
    }
    return call.id;
  }

  const audio = () => {
    const bytes = new Uint8Array(44 + 6400);
    for (let i = 44; i < bytes.length; i++) bytes[i] = i % 251;
    bytes.set(wavHeader(6400), 0);
    return bytes;
  };

  it('serves the WAV to the workspace key, whole and by range', async () => {
    const data = audio();
    const id = await storedCall('completed', data);
    const whole = await t.call({ method: 'GET', url: `/v2/calls/${id}/recording` });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('audio/wav');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(new Uint8Array(whole.rawPayload)).toEqual(data);
    expect(whole.rawPayload.toString('ascii', 0, 4)).toBe('RIFF');

    const part = await t.call({
      method: 'GET',
      url: `/v2/calls/${id}/recording`,
      headers: { range: 'bytes=44-99' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 44-99/${data.length}`);
    expect(new Uint8Array(part.rawPayload)).toEqual(data.subarray(44, 100));
    const tail = await t.call({
      method: 'GET',
      url: `/v2/calls/${id}/recording`,
      headers: { range: 'bytes=-10' },
    });
    expect(new Uint8Array(tail.rawPayload)).toEqual(data.subarray(data.length - 10));

    const outside = await t.call({
      method: 'GET',
      url: `/v2/calls/${id}/recording`,
      headers: { range: `bytes=${data.length}-` },
    });
    expectErrorBody(outside, 416, 'validation');
    expect(outside.headers['content-range']).toBe(`bytes */${data.length}`);
  });

  it("another workspace's key cannot read it, and nobody without a key", async () => {
    const id = await storedCall('completed', audio());
    expectNotFound(await t.call({ method: 'GET', url: `/v2/calls/${id}/recording`, key: t.other.key }));
    expect((await t.call({ method: 'GET', url: `/v2/calls/${id}/recording`, key: null })).statusCode).toBe(
      401,
    );
  });

  it('says which part is missing: the call, or its recording; a bad id names the field', async () => {
    expectNotFound(await t.call({ method: 'GET', url: `/v2/calls/${randomUUID()}/recording` }));
    const unrecorded = await storedCall('completed');
    const res = await t.call({ method: 'GET', url: `/v2/calls/${unrecorded}/recording` });
    expect(expectNotFound(res).description).toContain('has no recording');
    expectFieldError(await t.call({ method: 'GET', url: '/v2/calls/nope/recording' }), ['params', 'call_id']);
  });

  it('deleting a finished call deletes its recording; a running call is refused', async () => {
    const id = await storedCall('completed', audio());
    const del = await t.call({ method: 'DELETE', url: `/v2/calls/${id}` });
    expect(del.json()).toEqual({ status: 'ok' });
    expectNotFound(await t.call({ method: 'GET', url: `/v2/calls/${id}` }));
    expect(await t.recordings.open(t.ws.id, id)).toBeNull();
    expectNotFound(await t.call({ method: 'DELETE', url: `/v2/calls/${id}` }));

    const running = await storedCall('ringing', audio());
    expectErrorBody(await t.call({ method: 'DELETE', url: `/v2/calls/${running}` }), 409, 'conflict');
    expect((await t.store.calls.get(t.ws.id, running))?.status).toBe('ringing');
    expect(await t.recordings.open(t.ws.id, running)).not.toBeNull();
    expect(FINAL_STATUSES).not.toContain('ringing');

    const other = await storedCall('completed');
    expectNotFound(await t.call({ method: 'DELETE', url: `/v2/calls/${other}`, key: t.other.key }));
    expectFieldError(await t.call({ method: 'DELETE', url: '/v2/calls/x' }), ['params', 'call_id']);
  });
});
