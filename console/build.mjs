// Builds the console into console/dist (run by `npm ci` through the `prepare` script, and by
// `npm run build:console`): one bundled, minified script and one stylesheet, each also stored
// gzip- and brotli-compressed so the server sends them without compressing per request, and an
// index.html that loads them (no inline script: the server's content security policy forbids it).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');

export async function buildConsole() {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'assets'), { recursive: true });
  const result = await build({
    entryPoints: { app: join(here, 'src/main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    write: false,
    outdir: join(out, 'assets'),
    legalComments: 'none',
    logLevel: 'warning',
  });
  const names = {};
  for (const file of result.outputFiles) {
    const ext = file.path.endsWith('.css') ? 'css' : 'js';
    const hash = createHash('sha256').update(file.contents).digest('hex').slice(0, 10);
    const name = `app-${hash}.${ext}`;
    names[ext] = name;
    write(join(out, 'assets', name), Buffer.from(file.contents));
  }
  const html = readFileSync(join(here, 'index.html'), 'utf8')
    .replace('%SCRIPT%', `/assets/${names.js}`)
    .replace('%STYLE%', names.css ? `<link rel="stylesheet" href="/assets/${names.css}">` : '');
  write(join(out, 'index.html'), Buffer.from(html));
  return names;
}

function write(file, contents) {
  writeFileSync(file, contents);
  writeFileSync(`${file}.gz`, gzipSync(contents, { level: 9 }));
  writeFileSync(
    `${file}.br`,
    brotliCompressSync(contents, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = await buildConsole();
  process.stdout.write(`console built: ${Object.values(names).join(', ')}\n`);
}
