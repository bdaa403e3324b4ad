import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Parley } from '../sdk/index.ts';
import { createParleyMcpServer } from './server.ts';

/**
 * Answers one MCP request over the streamable HTTP transport, statelessly: each request gets its
 * own server and transport (no session to keep across nodes), acting through `parley`.
 */
export async function answerMcpHttp(
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
  parley: Parley,
): Promise<void> {
  const server = createParleyMcpServer(parley);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  response.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}
