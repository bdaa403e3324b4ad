import { createApp, type Role } from './app.ts';
import { loadConfig } from './core/index.ts';

// The process entry of `parley serve`: start, listen, and on SIGTERM or SIGINT stop taking
// requests, finish those in flight (bounded by PARLEY_SHUTDOWN_TIMEOUT_MS) and close the store.

export async function serve(role: Role = 'all'): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config, { role });
  const address = await app.listen();
  app.logger.info({ address, node: config.nodeName, store: app.store.dialect, role }, 'parley listening');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.logger.error({ timeout_ms: config.shutdownTimeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    app.close().then(
      () => {
        app.logger.info('stopped');
        process.exitCode = 0;
      },
      (err: unknown) => {
        app.logger.error({ err }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
