import { createEngine, type Engine } from '../src/app.ts';
import { silentLogger, systemClock } from '../src/core/index.ts';
import { createBuiltinLLM, createModelRouter, createSimMessaging } from '../src/providers/index.ts';
import type { Store } from '../src/store/index.ts';

/** The real engine in the bench process: builtin model, the sim carrier at `simSpeed`, no logs. */
export function offlineEngine(store: Store, simSpeed = 0): Engine {
  return createEngine({
    store,
    models: createModelRouter({ platform: createBuiltinLLM() }),
    clock: systemClock,
    logger: silentLogger(),
    node: 'bench',
    simSpeed,
    allowPrivateNetwork: true,
    messaging: { sim: createSimMessaging() },
  });
}
