import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** util-linux's setpriv (Debian's base system has it), which can set the parent-death signal. */
const SETPRIV = '/usr/bin/setpriv';

let setprivFound: boolean | undefined;
function hasSetpriv(): boolean {
  if (setprivFound === undefined) {
    try {
      accessSync(SETPRIV, constants.X_OK);
      setprivFound = true;
    } catch {
      setprivFound = false;
    }
  }
  return setprivFound;
}

/**
 * Spawns a helper process that dies with this one: when this process ends in any way (a crash, a
 * SIGKILL, the OOM killer), the kernel kills the child (PR_SET_PDEATHSIG through setpriv, which
 * then execs the program in place). A plain child would live on, an orphan holding its memory
 * (a PocketSphinx decoder: about 96 MB) until the machine restarts. Without setpriv it is a plain
 * child.
 */
export function spawnTiedChild(file: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return hasSetpriv()
    ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', file, ...args], options)
    : spawn(file, args, options);
}
