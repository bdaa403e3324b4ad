import { expect } from 'vitest';
import type { TestApi } from '../helpers.ts';

// The API calls the SIP tests make of the server under test: a request that must succeed, and a
// call's record once it is over and its after-call work is done.

const FINAL = new Set(['completed', 'failed', 'canceled', 'user-canceled', 'busy', 'no-answer']);

export interface CallApi {
  api<T = Record<string, unknown>>(method: string, url: string, payload?: unknown): Promise<T>;
  /** Waits for the call `find` names to end, its analysis and the rest of its work done. */
  finalCall(find: () => Promise<string | null>): Promise<Record<string, unknown>>;
}

/** `server` gives the test API (made in a `beforeAll`). */
export function callApi(server: () => TestApi): CallApi {
  async function api<T = Record<string, unknown>>(
    method: string,
    url: string,
    payload?: unknown,
  ): Promise<T> {
    const res = await server().call({
      method: method as 'GET',
      url,
      ...(payload ? { payload: payload as object } : {}),
    });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json() as T;
  }
  async function callRecord(id: string): Promise<Record<string, unknown>> {
    const body = await api<{ response: { calls: Record<string, unknown>[] } }>('GET', `/v2/calls/${id}`);
    const call = body.response.calls[0];
    if (!call) throw new Error(`no call ${id}`);
    return call;
  }
  async function finalCall(find: () => Promise<string | null>): Promise<Record<string, unknown>> {
    for (;;) {
      const id = await find();
      if (id) {
        const call = await callRecord(id);
        if (FINAL.has(String(call.status)) && call.transcript !== undefined) {
          if (call.status !== 'completed' || call.analysis !== undefined) return call;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return { api, finalCall };
}
