// Benchmark server: Parley as bench/servers/parley.ts starts it (from the environment: HOST, PORT,
// PARLEY_DATA_DIR, PARLEY_BOOTSTRAP_API_KEY, PARLEY_LOG_LEVEL...), except that every agent runs on
// a zero-latency fake model (bench/zero-llm.ts), so a chat message costs only the platform's work.
// Prints `LISTENING <url>` once ready and closes cleanly on SIGTERM/SIGINT (for `--cpu-prof`).
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/core/index.ts';
import { createModelRouter } from '../../src/providers/index.ts';
import { createZeroLatencyLLM } from '../zero-llm.ts';

const app = await createApp(loadConfig(), {
  models: createModelRouter({ platform: createZeroLatencyLLM() }),
});
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
