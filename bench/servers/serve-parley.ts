// Starts Parley as `parley serve` builds it, from the environment (HOST, PORT, PARLEY_DATA_DIR,
// PARLEY_BOOTSTRAP_API_KEY, PARLEY_LOG_LEVEL...), with `overrides` for what a case swaps. Prints
// `LISTENING <url>` once ready and closes cleanly on SIGTERM/SIGINT (so `--cpu-prof` can write
// its profile).
import { createApp, type AppOverrides } from '../../src/app.ts';
import { loadConfig } from '../../src/core/index.ts';

export async function serveParley(overrides: AppOverrides = {}): Promise<void> {
  const app = await createApp(loadConfig(), overrides);
  const url = await app.listen();
  process.stdout.write(`LISTENING ${url}\n`);

  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
