// Benchmark server: Parley as bench/servers/parley.ts starts it, except that every agent runs on
// a zero-latency fake model (bench/zero-llm.ts), so a chat message costs only the platform's work.
import { createModelRouter } from '../../src/providers/index.ts';
import { createZeroLatencyLLM } from '../zero-llm.ts';
import { serveParley } from './serve-parley.ts';

await serveParley({ models: createModelRouter({ platform: createZeroLatencyLLM() }) });
