import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/**
 * The repository's root, where package.json is: the same whether this runs as TypeScript (src/)
 * or as the build (dist/src/), found by the package's name rather than a relative path.
 */
export const PACKAGE_ROOT = dirname(createRequire(import.meta.url).resolve('parley/package.json'));
