import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Parley } from '../sdk/index.ts';
import { createParleyMcpServer } from './server.ts';

/** Serves MCP over this process's stdin and stdout until stdin ends (`parley mcp`). */
export async function serveMcpOverStdio(parley: Parley): Promise<void> {
  const server = createParleyMcpServer(parley);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
