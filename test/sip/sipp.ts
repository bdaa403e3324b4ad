import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// sipp (Debian `sip-tester`) as a real SIP peer for tests: each run plays one scenario for one call
// and exits 0 when every step of it happened as written (man sipp). Scenarios live in
// test/sip/scenarios/; a run happens in a scratch directory where `pcap/` points at the pcaps
// Debian ships (the built-in uac_pcap scenario names them relative to it).

export const SCENARIOS = resolve(import.meta.dirname, 'scenarios');

/** Whether every command named is on the PATH (tests that need system tools skip without them). */
export function hasCommands(...names: string[]): boolean {
  try {
    execFileSync('sh', ['-c', names.map((n) => `command -v ${n}`).join(' && ')], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface SippRun {
  /** The port sipp listens on for SIP. */
  port: number;
  /** The port of its RTP (`[media_port]`). */
  mediaPort: number;
  /** Resolves when sipp exits: its exit code and what it printed. */
  done: Promise<{ code: number | null; out: string }>;
  kill(): void;
}

/** A free UDP and TCP port on loopback (an even one, for RTP: its odd neighbour is RTCP's). */
export async function freeSipPort(even = false): Promise<number> {
  for (;;) {
    const found = await new Promise<number>((done, fail) => {
      const server = createServer();
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() =>
          typeof address === 'object' && address ? done(address.port) : fail(new Error('no port')),
        );
      });
    });
    // Linux hands out odd ports to bind(0): the even one below it is the RTP candidate.
    const port = even && found % 2 !== 0 ? found - 1 : found;
    const free = await new Promise<boolean>((done) => {
      const socket = createSocket('udp4');
      socket.once('error', () => done(false));
      socket.bind(port, '127.0.0.1', () => socket.close(() => done(true)));
    });
    if (free) return port;
  }
}

export interface SippOptions {
  /** A scenario file under SCENARIOS, or a built-in (`uac_pcap`, `uas`...) with `builtin`. */
  scenario: string;
  builtin?: boolean;
  /** host:port to send the first request to (UAC scenarios). */
  target?: string;
  /** The user part of the Request-URI (`-s`). */
  service?: string;
  /** Values for `[field0]`... in the scenario: written to an injection file (`-inf`). */
  fields?: string[];
  /** More command-line arguments. */
  args?: string[];
  /** Gives up after this long (sipp's own -timeout), ms. */
  timeoutMs?: number;
  /** A file to stream, put beside the scenario as `audio.wav`. */
  audio?: Buffer;
  /** Replaces `{{name}}` in the scenario's text before sipp reads it (where sipp takes no field). */
  replace?: Record<string, string>;
}

export async function runSipp(options: SippOptions): Promise<SippRun> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-sipp-'));
  symlinkSync('/usr/share/sip-tester', join(dir, 'pcap'));
  if (options.audio) writeFileSync(join(dir, 'audio.wav'), options.audio);
  const port = await freeSipPort();
  const mediaPort = await freeSipPort(true);
  let scenarioFile = join(SCENARIOS, options.scenario);
  if (options.replace && !options.builtin) {
    let text = readFileSync(scenarioFile, 'utf8');
    for (const [name, value] of Object.entries(options.replace)) text = text.replaceAll(`{{${name}}}`, value);
    scenarioFile = join(dir, options.scenario);
    writeFileSync(scenarioFile, text);
  }
  const args = [
    ...(options.builtin ? ['-sn', options.scenario] : ['-sf', scenarioFile]),
    ...(options.target ? [options.target] : []),
    '-i',
    '127.0.0.1',
    '-p',
    String(port),
    '-mi',
    '127.0.0.1',
    '-mp',
    String(mediaPort),
    '-m',
    '1',
    '-timeout',
    `${Math.ceil((options.timeoutMs ?? 30_000) / 1000)}s`,
    '-timeout_error',
    '-nostdin',
    '-trace_err',
    ...(options.service ? ['-s', options.service] : []),
    ...(options.args ?? []),
  ];
  if (options.fields) {
    const file = join(dir, 'fields.csv');
    writeFileSync(file, `SEQUENTIAL\n${options.fields.join(';')};\n`);
    args.push('-inf', file);
  }
  const child = spawn('sipp', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<{ code: number | null; out: string }>((resolveDone) => {
    child.once('exit', (code) => {
      // sipp's error log (-trace_err) says which step failed.
      const logs = readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .map((f) => readFileSync(join(dir, f), 'utf8'))
        .join('\n');
      rmSync(dir, { recursive: true, force: true });
      resolveDone({ code, out: `${out.slice(-3000)}\n${logs.slice(-3000)}` });
    });
  });
  return { port, mediaPort, done, kill: () => child.kill('SIGKILL') };
}
