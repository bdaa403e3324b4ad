import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freeSipPort, hasCommands, runSipp } from '../sip/sipp.ts';
import {
  createWorkspace,
  killAll,
  ok,
  postgresStore,
  serve,
  until,
  type Reader,
  type TestStore,
} from './campaign-helpers.ts';

// Several nodes behind a SIP proxy (docs/sip.md, "Several nodes"): two `parley serve` processes on
// one PostgreSQL database, each with its own SIP listener and RTP ports, and Kamailio's dispatcher
// (Debian `kamailio`) in front of them spreading new calls round-robin. sipp calls the proxy twice:
// one call reaches each node, runs there, and finishes there (its BYE routed back through the
// proxy to the node that took it).

const pgUrl = process.env.PARLEY_TEST_DATABASE_URL;
const hasTools = hasCommands('kamailio', 'sipp');
const runHere = Boolean(pgUrl) && (hasTools || Boolean(process.env.CI));
if (!runHere)
  console.log('sip-kamailio skipped: it needs PostgreSQL (PARLEY_TEST_DATABASE_URL), kamailio and sipp');

const CONFIG = resolve(import.meta.dirname, 'kamailio', 'kamailio.cfg');
const NODES = { a: 'sipnode-a', b: 'sipnode-b' };
const OUR_NUMBER = '+14155550170';

/** Starts Kamailio with the dispatcher over `nodes` on `port`; resolves once it listens. */
async function startKamailio(port: number, nodes: number[]): Promise<{ child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-kamailio-'));
  const list = join(dir, 'dispatcher.list');
  writeFileSync(list, nodes.map((p) => `1 sip:127.0.0.1:${p}\n`).join(''));
  const config = readFileSync(CONFIG, 'utf8')
    .replace('{{listen}}', `127.0.0.1:${port}`)
    .replace('{{list}}', list);
  writeFileSync(join(dir, 'kamailio.cfg'), config);
  const child = spawn('kamailio', ['-f', join(dir, 'kamailio.cfg'), '-DD', '-E', '-Y', dir, '-w', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await until(
    'kamailio listening',
    async () =>
      log.includes('SO_RCVBUF is finally')
        ? true
        : child.exitCode !== null
          ? Promise.reject(new Error(log))
          : undefined,
    15_000,
  );
  return { child, dir };
}

describe.runIf(runHere)('SIP calls spread over two nodes by Kamailio', () => {
  let store: TestStore | undefined;
  let reader: Reader | undefined;
  let kamailio: { child: ChildProcess; dir: string } | undefined;

  afterAll(async () => {
    kamailio?.child.kill('SIGTERM');
    if (kamailio) rmSync(kamailio.dir, { recursive: true, force: true });
    await killAll();
    await reader?.close();
    await store?.cleanup();
  });

  it('sends one call to each node; each finishes on its node', async () => {
    store = await postgresStore(pgUrl!, 'parley_sipnodes');
    const env = { ...store.env, PARLEY_SIM_MODE: 'text' };
    const { key } = await createWorkspace(env, 'sipnodes', 4);
    reader = await store.reader();
    const [portA, portB, proxyPort] = [await freeSipPort(), await freeSipPort(), await freeSipPort()];
    const node = (name: string, sipPort: number, rtpMin: number) =>
      serve({
        env: {
          ...env,
          PARLEY_SIP_PORT: String(sipPort),
          PARLEY_RTP_PORT_MIN: String(rtpMin),
          PARLEY_RTP_PORT_MAX: String(rtpMin + 998),
        },
        node: name,
        lifetimeMs: 90_000,
      });
    const [a] = await Promise.all([node(NODES.a, portA, 50_000), node(NODES.b, portB, 51_000)]);
    const agent = await ok(a.url, key, 'POST', '/v2/assistants', {
      type: 'inbound',
      name: 'Front desk',
      agent: { prompt: 'Be brief.', greeting_message: 'Hello, you reached the front desk.' },
    });
    // The trunk is the proxy: calls come from its address.
    await ok(a.url, key, 'POST', '/v2/custom-numbers', {
      phone_number: OUR_NUMBER,
      provider: 'sip',
      sip: { host: '127.0.0.1', port: proxyPort },
    });
    await ok(a.url, key, 'PUT', `/v2/assistants/${agent.model_id as string}/phone_numbers`, {
      phone_numbers: [OUR_NUMBER],
    });
    kamailio = await startKamailio(proxyPort, [portA, portB]);

    for (let i = 0; i < 2; i += 1) {
      const sipp = await runSipp({
        scenario: 'uac-short.xml',
        target: `127.0.0.1:${proxyPort}`,
        service: OUR_NUMBER.slice(1),
        timeoutMs: 30_000,
      });
      const result = await sipp.done;
      expect(result.code, result.out).toBe(0);
    }
    const rows = await until(
      'both calls over',
      async () => {
        const found = await reader!.all<{ node: string; status: string }>(
          'select node, status from calls where phone_to = ? order by created_at',
          [OUR_NUMBER],
        );
        return found.length === 2 && found.every((r) => r.status === 'completed') ? found : undefined;
      },
      30_000,
      200,
    );
    expect(rows.map((r) => r.node).sort()).toEqual([NODES.a, NODES.b]);
  }, 120_000);
});
