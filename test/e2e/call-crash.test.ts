import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver/index.ts';
import {
  createWorkspace,
  killAll,
  ok,
  postgresStore,
  serve,
  sqliteStore,
  until,
  type Reader,
  type Server,
  type TestStore,
} from './campaign-helpers.ts';

// Nothing said is lost when a node dies (issue 22 part 7, docs/durability.md): a real `parley
// serve` runs two recorded voice calls on the sim carrier with real audio (flite speaks,
// PocketSphinx hears, in real time), and is killed with SIGKILL once every call has completed
// turns stored. Restarted on the same data under the same node name (or, on PostgreSQL, taken
// over by another node sharing its database and data dir), the calls fail as before, but each
// record holds the turns said up to the kill, a duration from the answer, and the recording as
// far as it was written (a valid WAV); the post-call webhook says it was cut short.

const NODE = 'voice-node';
const FROM = '+14155550160';
const GREETING = 'Hello, this is Sam from Sunny Solar. Do you have a minute to talk about solar panels?';
const CALLS = 2;
const DEAD_AFTER_MS = '6000';

interface TurnRow {
  call_id: string;
  turn: number;
  speaker: string;
  text: string;
}

/** The parts of a WAV file this test checks. */
function parseWav(bytes: Buffer) {
  return {
    riff: bytes.toString('ascii', 0, 4),
    riffSize: bytes.readUInt32LE(4),
    wave: bytes.toString('ascii', 8, 12),
    format: bytes.readUInt16LE(20),
    channels: bytes.readUInt16LE(22),
    rate: bytes.readUInt32LE(24),
    bits: bytes.readUInt16LE(34),
    data: bytes.toString('ascii', 36, 40),
    dataSize: bytes.readUInt32LE(40),
  };
}

/** Sum of absolute sample values of one channel (0 left, 1 right) of a 16-bit stereo WAV. */
function channelEnergy(bytes: Buffer, channel: 0 | 1): number {
  let sum = 0;
  for (let at = 44 + channel * 2; at + 2 <= bytes.length; at += 4) sum += Math.abs(bytes.readInt16LE(at));
  return sum;
}

/**
 * Who finishes the dead node's calls: the same node started again on the same data, or (on
 * PostgreSQL) another node sharing the database and the data dir, once the dead one has been
 * silent for DEAD_AFTER_MS (30 s by default; shortened here, as waiting out the default only
 * makes the test slower).
 */
type Recovery = 'restart' | 'takeover';
const targets: { name: string; make: () => Promise<TestStore>; recovery: Recovery }[] = [
  { name: 'sqlite', make: sqliteStore, recovery: 'restart' },
];
const pgUrl = process.env.PARLEY_TEST_DATABASE_URL;
if (pgUrl) {
  const make = () => postgresStore(pgUrl, 'parley_voice_crash');
  targets.push(
    { name: 'postgres', make, recovery: 'restart' },
    { name: 'postgres', make, recovery: 'takeover' },
  );
}

for (const { name, make, recovery } of targets) {
  describe(`voice calls survive kill -9 [${name}, ${recovery}]`, () => {
    let store: TestStore;
    let reader: Reader | undefined;
    let receiver: WebhookReceiver | undefined;

    beforeAll(async () => {
      store = await make();
    });
    afterAll(async () => {
      await killAll();
      await reader?.close();
      await receiver?.close();
      await store?.cleanup();
    });

    it('keeps the turns said, the duration and the recording up to the kill; the webhook says so', async () => {
      const env = {
        ...store.env,
        PARLEY_SIM_MODE: 'audio',
        PARLEY_SIM_SPEED: '1',
        PARLEY_ALLOW_PRIVATE_NETWORK: '1',
        PARLEY_NODE_DEAD_AFTER_MS: DEAD_AFTER_MS,
      };
      const { key } = await createWorkspace(env, 'voice-crash', 5);
      const start = () => serve({ env, node: NODE, lifetimeMs: 240_000, readyTimeoutMs: 60_000 });
      let server: Server = await start();
      // Speech is ready after the API (PocketSphinx loads); without it sim calls would be text.
      const speechReady = (s: Server) =>
        until(
          'speech ready',
          async () => (s.lines.some((l) => l.includes('"sim_calls"')) ? true : undefined),
          60_000,
        );
      await speechReady(server);
      expect(server.lines.some((l) => l.includes('"sim_calls":"audio"'))).toBe(true);
      reader = await store.reader();
      const db = reader;

      const secret = (await ok(server.url, key, 'GET', '/v2/webhook_secret')).webhook_secret as string;
      receiver = await startWebhookReceiver({ secret });
      await ok(server.url, key, 'POST', '/v2/custom-numbers', { phone_number: FROM, provider: 'sim' });
      const agent = await ok(server.url, key, 'POST', '/v2/assistants', {
        type: 'outbound',
        name: 'Solar',
        phone_number: FROM,
        is_recording: true,
        agent: {
          prompt: 'You sell solar panels. Ask if they own their home, then about their power bill.',
          greeting_message: GREETING,
          greeting_message_mode: 'agent_static',
        },
      });
      const ids: string[] = [];
      for (let i = 0; i < CALLS; i += 1) {
        const placed = await ok(server.url, key, 'POST', '/v2/calls', {
          model_id: agent.model_id,
          phone: `+1415555170${i}`,
          name: `Lead ${i}`,
          external_webhook_url: `${receiver.url}/ok`,
        });
        ids.push(placed.call_id as string);
      }
      const marks = ids.map(() => '?').join(', ');

      // Every call in progress with a completed exchange kept: the greeting, played out, and the
      // callee's answer to it. A call that ended first would fail the wait (it says why).
      const turnsOf = () =>
        db.all<TurnRow>(
          `select call_id, turn, speaker, text from call_turns where call_id in (${marks}) order by call_id, turn`,
          ids,
        );
      await until(
        'every call in progress with two turns kept',
        async () => {
          const calls = await db.all<{ id: string; status: string }>(
            `select id, status, error_message from calls where id in (${marks})`,
            ids,
          );
          const over = calls.filter(
            (c) => c.status !== 'in-progress' && c.status !== 'ringing' && c.status !== 'pending',
          );
          if (over.length > 0) {
            const problems = server.lines.filter((l) => /"level":(40|50)/.test(l));
            throw new Error(`calls ended before the kill: ${JSON.stringify(over)}\n${problems.join('\n')}`);
          }
          const turns = await turnsOf();
          const kept = ids.map((id) => turns.filter((t) => t.call_id === id).length);
          return calls.every((c) => c.status === 'in-progress') && kept.every((n) => n >= 2)
            ? true
            : undefined;
        },
        180_000,
        100,
      );
      await server.kill();

      // What the dead process left: the turns kept, and unfinished recordings.
      const left = await turnsOf();
      for (const id of ids) {
        const turns = left.filter((t) => t.call_id === id);
        console.log(
          `[${name}] kept before the kill: ${JSON.stringify(turns.map((t) => [t.speaker, t.text]))}`,
        );
        // The greeting, or what the callee heard of it before talking over it.
        expect(turns[0]).toMatchObject({ turn: 0, speaker: 'agent' });
        expect(turns[0]!.text.length).toBeGreaterThan(0);
        expect(GREETING.startsWith(turns[0]!.text)).toBe(true);
        expect(turns.some((t) => t.speaker === 'user' && t.text.trim() !== '')).toBe(true);
        expect(turns.map((t) => t.turn)).toEqual(turns.map((_, i) => i));
      }

      server =
        recovery === 'restart'
          ? await start()
          : await serve({ env, node: 'other-node', lifetimeMs: 240_000, readyTimeoutMs: 60_000 });
      const hooks = await receiver.waitFor(CALLS);
      for (const id of ids) {
        const turns = left.filter((t) => t.call_id === id);
        const transcript = turns
          .map((t) => `${t.speaker === 'agent' ? 'bot' : 'human'}: ${t.text}`)
          .join('\n');
        const call = (await ok(server.url, key, 'GET', `/v2/calls/${id}`)).calls[0];
        expect(call).toMatchObject({
          call_id: id,
          status: 'failed',
          error_message: 'the call was interrupted: the server running it stopped',
          transcript,
        });
        expect(call.duration).toBeGreaterThan(0);
        expect(call.recording_url).toBe(`${server.url}/v2/calls/${id}/recording`);

        // The recording as far as it was written: a valid WAV, both sides heard in it.
        const res = await fetch(call.recording_url, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('audio/wav');
        const wav = Buffer.from(await res.arrayBuffer());
        expect(parseWav(wav)).toEqual({
          riff: 'RIFF',
          riffSize: wav.length - 8,
          wave: 'WAVE',
          format: 1,
          channels: 2,
          rate: 16_000,
          bits: 16,
          data: 'data',
          dataSize: wav.length - 44,
        });
        expect(wav.length - 44).toBeGreaterThan(0);
        expect((wav.length - 44) % 4).toBe(0);
        expect(channelEnergy(wav, 0)).toBeGreaterThan(0);
        expect(channelEnergy(wav, 1)).toBeGreaterThan(0);

        // The post-call webhook, signed, says the call was cut short and carries what was kept.
        const hook = hooks.find(
          (h) => (JSON.parse(h.body) as { call: { call_id: string } }).call.call_id === id,
        );
        expect(hook?.verified).toBe(true);
        const payload = JSON.parse(hook!.body) as {
          status: string;
          error_message: string;
          call: Record<string, unknown>;
        };
        expect(payload.status).toBe('failed');
        expect(payload.error_message).toBe('the call was interrupted: the server running it stopped');
        expect(payload.call).toMatchObject({
          cut_short: true,
          transcript,
          duration: call.duration,
          recording_url: call.recording_url,
        });
      }
      // The kept turns went with the calls' last moves; no unfinished recording is left behind.
      expect(await turnsOf()).toEqual([]);
      const files = readdirSync(store.env.PARLEY_DATA_DIR!, { recursive: true }).map(String);
      expect(files.filter((f) => f.endsWith('.part'))).toEqual([]);
      expect(files.filter((f) => f.endsWith('.wav'))).toHaveLength(CALLS);
      await server.stop();
    }, 300_000);
  });
}
