import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/core/index.ts';

// The real server in this process, listening on a free port: the API-only role on a fresh SQLite
// file, with a known bootstrap key (calls placed stay pending: no node here runs them).

export interface RealServer {
  app: App;
  url: string;
  key: string;
  close(): Promise<void>;
}

export const REAL_SERVER_KEY = 'pk_sdk_and_mcp_tests_0001';

export async function startRealServer(): Promise<RealServer> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-sdk-'));
  const config = loadConfig({
    PARLEY_DATA_DIR: dir,
    PORT: '0',
    PARLEY_LOG_LEVEL: 'silent',
    PARLEY_BOOTSTRAP_API_KEY: REAL_SERVER_KEY,
  });
  const app = await createApp(config, { role: 'api', announce: () => {} });
  const url = await app.listen();
  return {
    app,
    url,
    key: REAL_SERVER_KEY,
    close: async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
