// Case `start`: from starting a node to its first 200 on /readyz (issue 25: a node restarted after
// a crash or during a rolling update refuses calls until then). Three ways, in turns so other work
// on the machine falls on each alike:
// - npm start: the README's command (npm, then bin/start.js: the JavaScript `npm ci` built into dist/);
// - built: bin/start.js alone (what npm start runs, without npm's own start);
// - tsx, cold: `bin/parley.js serve` (the TypeScript through tsx) with tsx's cache emptied first,
//   as the first start after an install;
// - tsx, warm: the same with the cache the previous start left.
// Each start is a fresh data dir (SQLite, a new default workspace) with the offline speech as
// `npm start` loads it (PocketSphinx when installed) and SIP off (its port would be shared);
// the clock runs from the spawn to the first 200, polled every 10 ms.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CaseContext } from './api.ts';
import {
  freePort,
  intEnv,
  machine,
  markdownTable,
  ROOT,
  tempDir,
  textTable,
  writeResultsSection,
} from './lib.ts';

const RUNS = () => intEnv('BENCH_START_RUNS', 7, 1, 50);
export const startPhaseSeconds = (): number => RUNS() * 4 * 15;

type Way = 'npm start' | 'built' | 'tsx-cold' | 'tsx-warm';
const WAYS: Way[] = ['npm start', 'built', 'tsx-cold', 'tsx-warm'];
const TIMEOUT_MS = 60_000;

/** tsx's transform cache (its default: the OS temp dir, per user). */
const tsxCache = () => join(tmpdir(), `tsx-${userInfo().uid}`);

async function startOnce(way: Way): Promise<number> {
  if (way === 'tsx-cold') rmSync(tsxCache(), { recursive: true, force: true });
  const port = await freePort();
  const [command, args] =
    way === 'npm start'
      ? ['npm', ['start']]
      : [process.execPath, way === 'built' ? ['bin/start.js'] : ['bin/parley.js', 'serve']];
  const started = performance.now();
  // Its own process group: npm's child is stopped with it.
  const child = spawn(command, args, {
    detached: true,
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      PARLEY_DATA_DIR: tempDir('start-data'),
      PARLEY_DATABASE_URL: '',
      PARLEY_LOG_LEVEL: 'warn',
      PARLEY_SIP: 'off',
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${way}: the node exited (${child.exitCode})`);
      if (performance.now() - started > TIMEOUT_MS) throw new Error(`${way}: not ready in ${TIMEOUT_MS} ms`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) return performance.now() - started;
      await sleep(10);
    }
  } finally {
    const exited = new Promise((resolve) =>
      child.exitCode !== null ? resolve(null) : child.once('exit', resolve),
    );
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // Gone already.
    }
    await exited;
  }
}

const percentile = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};

export async function runStartCase(ctx: CaseContext): Promise<void> {
  const runs = RUNS();
  const times: Record<Way, number[]> = { 'npm start': [], built: [], 'tsx-cold': [], 'tsx-warm': [] };
  for (let i = 0; i < runs; i += 1) {
    // tsx-warm right after tsx-cold: its cache is the one that start left.
    const order: Way[] = i % 2 === 0 ? WAYS : ['tsx-cold', 'tsx-warm', 'built', 'npm start'];
    for (const way of order) {
      const ms = await startOnce(way);
      times[way].push(ms);
      console.log(`run ${i + 1} ${way}: ready after ${ms.toFixed(0)} ms`);
    }
  }
  const header = ['Way', 'Starts', 'Spawn to /readyz 200, p50 ms', 'min ms', 'max ms'];
  const rows = WAYS.map((w) => [
    w,
    String(times[w].length),
    percentile(times[w], 50).toFixed(0),
    Math.min(...times[w]).toFixed(0),
    Math.max(...times[w]).toFixed(0),
  ]);
  console.log(textTable(header, rows));
  const npmStart = percentile(times['npm start'], 50);
  writeResultsSection(
    'start',
    `## Case \`start\`: from starting a node to its first 200 on /readyz

- Date: ${new Date().toISOString()}
- Machine: ${machine()}
- Command: \`${ctx.command} start\`
- Target (issue 25): cold start to \`/readyz\` ≤ 1.5 s.
- Ways, in turns: **npm start** is the README's command: npm, then bin/start.js, which runs the
  JavaScript \`npm ci\` builds into dist/ with \`tsc -p tsconfig.build.json\`; **built** is bin/start.js
  alone (without npm's own start); **tsx-cold** is \`bin/parley.js serve\` (the sources through tsx) after
  emptying tsx's cache, as the first start after an install; **tsx-warm** the same again with that cache.
  Each start: a fresh data dir (SQLite, the default workspace created), the offline speech as
  \`npm start\` loads it (PocketSphinx decoders started), SIP off; from the spawn to the first 200 on
  \`/readyz\`, polled every 10 ms. ${runs} starts each.

${markdownTable(header, rows)}

\`npm start\`: **${npmStart.toFixed(0)} ms** at the median (target ≤ 1,500 ms: ${npmStart <= 1500 ? 'met' : '**not met**'}).
`,
  );
}
