import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE, schemaSource, serverDocument } from '../../sdk/generate.ts';

// The SDK's types cannot drift from the server: regenerating them from the OpenAPI document of
// this checkout gives the committed file, byte for byte (npm run sdk:generate updates it).

describe('sdk/schema.ts', () => {
  it('is what the current OpenAPI document generates', async () => {
    const fresh = await schemaSource(await serverDocument());
    expect(
      fresh === readFileSync(SCHEMA_FILE, 'utf8'),
      'sdk/schema.ts is stale: run npm run sdk:generate',
    ).toBe(true);
  }, 60_000);

  it('types the routes the document lists, with their query parameters', async () => {
    const source = readFileSync(SCHEMA_FILE, 'utf8');
    for (const path of ['/v2/assistants', '/v2/calls', '/v2/calls/batch', '/v2/chat/{chat_id}/messages'])
      expect(source).toContain(`'${path}': {`);
    // A parameter with a default may be left out.
    expect(source).toMatch(/limit\?: number;/);
  });
});
