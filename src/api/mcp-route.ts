import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import { bearerToken } from './auth.ts';
import { ParleyError } from '../core/index.ts';

// POST /v2/mcp: the MCP server's streamable HTTP transport. The v2 scope's key check has run
// (the same one every route has); the tools then act through the API with that key. The server is
// stateless (each POST stands alone), so GET (a stream of server-sent requests) and DELETE (end a
// session) are 405, as the transport's specification allows.

export interface McpHttpCall {
  apiKey: string;
  request: IncomingMessage;
  response: ServerResponse;
  body: unknown;
}

export type McpHttpHandler = (call: McpHttpCall) => Promise<void>;

export const mcpRoutes: FastifyPluginAsync<{ handle: McpHttpHandler }> = async (app, { handle }) => {
  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const apiKey = bearerToken(request.headers.authorization);
    if (apiKey === null) throw new Error('unreachable: the v2 scope checked the key');
    reply.hijack();
    try {
      await handle({ apiKey, request: request.raw, response: reply.raw, body: request.body });
    } catch (err) {
      // The reply is ours now (hijacked): Fastify's error handler cannot answer for us.
      request.log.error({ err, event: 'mcp_failed' }, 'an MCP request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }),
        );
      } else reply.raw.end();
    }
  });
  const notHere = async () => {
    throw new ParleyError('this MCP server is stateless: send each request as a POST to /v2/mcp', {
      code: 'method_not_allowed',
      status: 405,
      category: 'validation',
    });
  };
  app.get('/mcp', { schema: { hide: true } }, notHere);
  app.delete('/mcp', { schema: { hide: true } }, notHere);
};
