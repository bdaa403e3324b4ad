import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from './package-root.ts';

// spawnTiedChild: a helper process does not outlive a parent killed with SIGKILL (a crash).

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('spawnTiedChild', () => {
  it('the child dies when its parent is killed', async () => {
    const parent = spawn(
      process.execPath,
      [resolve(PACKAGE_ROOT, 'bin/tsx-run.js'), resolve(PACKAGE_ROOT, 'test/fixtures/tied-child-parent.ts')],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
    const pid = Number(line.toString().trim());
    expect(Number.isInteger(pid) && pid > 0).toBe(true);
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  }, 30_000);
});
