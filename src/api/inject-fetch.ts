import type { FastifyInstance, HTTPMethods } from 'fastify';

/**
 * A fetch that hands each request to `app` in-process (Fastify's inject): the same routes, hooks,
 * key check and validation as over the network, without a socket. The MCP server's HTTP transport
 * calls the API this way with the key its client sent.
 */
export function injectFetch(app: () => FastifyInstance | undefined): (request: Request) => Promise<Response> {
  return async (request) => {
    const target = app();
    if (!target) throw new Error('the API is not running');
    const url = new URL(request.url);
    const payload = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const answer = await target.inject({
      method: request.method as HTTPMethods,
      url: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      ...(payload ? { payload } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
    }
    const bodyless = answer.statusCode === 204 || answer.statusCode === 304 || request.method === 'HEAD';
    const response = new Response(bodyless ? null : answer.rawPayload, {
      status: answer.statusCode,
      headers,
    });
    Object.defineProperty(response, 'url', { value: request.url });
    return response;
  };
}
