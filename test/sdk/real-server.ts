import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/core/index.ts';
import { freePort } from '../api/ws-media-helpers.ts';

// The real server in this process, listening on a free port, on a fresh SQLite file with a known
// bootstrap key. By default the API-only role (calls placed stay pending: no node here runs them);
// with `calls`, the role that runs them too, on the offline speech, as the browser and SDK call
// tests need (SIP off; sim calls as text).

export interface RealServer {
  app: App;
  url: string;
  key: string;
  close(): Promise<void>;
}

export interface RealServerOptions {
  /** Run calls in this process (role `all`): WebSocket media test calls work. */
  calls?: boolean;
  key?: string;
}

export const REAL_SERVER_KEY = 'pk_sdk_and_mcp_tests_0001';

export async function startRealServer(options: RealServerOptions = {}): Promise<RealServer> {
  const key = options.key ?? REAL_SERVER_KEY;
  const dir = mkdtempSync(join(tmpdir(), 'parley-sdk-'));
  // A call's socket URL is the public URL: it must be known before the server listens.
  const port = options.calls ? await freePort() : 0;
  const config = loadConfig({
    PARLEY_DATA_DIR: dir,
    PORT: String(port),
    PARLEY_LOG_LEVEL: 'silent',
    PARLEY_BOOTSTRAP_API_KEY: key,
    ...(options.calls
      ? { PARLEY_PUBLIC_URL: `http://127.0.0.1:${port}`, PARLEY_SIP: 'off', PARLEY_SIM_MODE: 'text' }
      : {}),
  });
  const app = await createApp(config, { role: options.calls ? 'all' : 'api', announce: () => {} });
  const url = await app.listen();
  return {
    app,
    url,
    key,
    close: async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
