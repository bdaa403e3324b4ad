// Benchmark server: Parley exactly as `parley serve` builds it (see serve-parley.ts).
import { serveParley } from './serve-parley.ts';

await serveParley();
