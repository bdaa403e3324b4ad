import { parseArgs } from 'node:util';
import { serveMcpOverStdio } from '../mcp/index.ts';
import { createParley } from '../sdk/index.ts';
import { resolveTarget } from './batch.ts';

// `parley mcp`: the MCP server over stdio, for an AI assistant that starts it as a subprocess. It
// acts through the API of a running server (--url, else PARLEY_URL...) with one key (--key, else
// PARLEY_API_KEY...), as `parley batch` does; stdout carries the protocol and nothing else.

export async function runMcp(args: string[], usageError: (message: string) => Error): Promise<void> {
  let values: { url?: string | boolean; key?: string | boolean };
  try {
    values = parseArgs({
      args,
      options: { url: { type: 'string' }, key: { type: 'string' } },
      allowPositionals: false,
      strict: true,
    }).values;
  } catch (err) {
    throw usageError(err instanceof Error ? err.message : String(err));
  }
  const target = resolveTarget({
    ...(typeof values.url === 'string' ? { url: values.url } : {}),
    ...(typeof values.key === 'string' ? { key: values.key } : {}),
  });
  await serveMcpOverStdio(createParley({ baseUrl: target.url, apiKey: target.key }));
}
