import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Parley } from '../sdk/index.ts';
import { registerParleyTools } from './tools.ts';

export const MCP_SERVER_NAME = 'parley';
/** The version the server names itself with: Parley's. */
const VERSION = (createRequire(import.meta.url)('parley/package.json') as { version: string }).version;

/** An MCP server whose tools act through `parley` (one API key, one workspace). */
export function createParleyMcpServer(parley: Parley): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: VERSION },
    {
      instructions:
        'Tools for Parley, a platform for AI voice and chat agents: agents, calls, campaigns, chats ' +
        'and simulations of the workspace whose API key this server was given.',
    },
  );
  registerParleyTools(server, parley);
  return server;
}
