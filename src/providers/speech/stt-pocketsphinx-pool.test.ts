import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, createManualClock } from '../../core/index.ts';
import type { AudioFrame } from '../../media/index.ts';
import { createPocketSphinxSTT } from './stt-pocketsphinx.ts';
import type { STTResult, STTStream } from './types.ts';

// The adapter's side of the decoder protocol, against stand-in decoders (shell scripts speaking
// pocketsphinx_batch's pipes), so these run wherever there is a shell: one that reports how many
// bytes of audio each utterance had, one that never opens the audio pipe, one that answers out of
// turn, one that answers its first utterance and stalls on the second.

const dir = mkdtempSync(join(tmpdir(), 'parley-stt-pool-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The availability check wants the model's files; the stand-ins never read them.
const modelDir = join(dir, 'model');
mkdirSync(join(modelDir, 'en-us'), { recursive: true });
for (const file of ['en-us/mdef', 'en-us.lm.bin', 'cmudict-en-us.dict'])
  writeFileSync(join(modelDir, file), '');

const ARGS = `while [ $# -gt 1 ]; do case "$1" in -ctl) ctl=$2;; -hyp) hyp=$2;; -cepdir) d=$2;; -cepext) e=$2;; esac; shift 2; done
exec 3<"$ctl" 4>"$hyp"`;

function standIn(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${ARGS}\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const counting = standIn(
  'counting.sh',
  `while read -r name sf ef utt <&3; do n=$(wc -c < "$d/$name$e"); echo "heard $n bytes ($utt 0)" >&4; done`,
);
const neverOpens = standIn('never-opens.sh', `read -r line <&3; exec sleep 60`);
const outOfTurn = standIn(
  'out-of-turn.sh',
  `while read -r name sf ef utt <&3; do cat "$d/$name$e" > /dev/null; echo "hello (u999 0)" >&4; done`,
);

const answersOnce = standIn(
  'answers-once.sh',
  `read -r name sf ef utt <&3; cat "$d/$name$e" > /dev/null; echo "first ($utt 0)" >&4
read -r name sf ef utt <&3; cat "$d/$name$e" > /dev/null; exec sleep 60`,
);

const frames = (count: number, level: number): AudioFrame[] =>
  Array.from({ length: count }, (_, i) => ({
    samples: Int16Array.from({ length: 320 }, (_, j) => (j % 2 === 0 ? level : -level)),
    sampleRate: 16000,
    at: i * 20,
  }));

function collect(stream: STTStream) {
  const got: STTResult[] = [];
  const done = (async (): Promise<unknown> => {
    try {
      for await (const result of stream.results) got.push(result);
      return null;
    } catch (err) {
      return err;
    }
  })();
  return { got, done };
}

async function until(ok: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('PocketSphinx decoder protocol', () => {
  it('streams the audio from just before speech (the pre-roll) to the end, and gives the words at flush', async () => {
    const stt = await createPocketSphinxSTT({ binary: counting, modelDir, poolSize: 1, prerollMs: 300 });
    try {
      const stream = stt.stream();
      const results = collect(stream);
      // 20 quiet frames (400 ms): the pre-roll keeps the last 300 ms. The gate opens on the second
      // loud frame; from there every frame goes to the decoder, the quiet ones too.
      for (const frame of [...frames(20, 0), ...frames(50, 3000), ...frames(10, 0)]) stream.push(frame);
      stream.flush();
      await until(() => results.got.length === 1, 'the final');
      const bytes = (samples: number) => samples * 2;
      expect(results.got[0]).toMatchObject({
        kind: 'final',
        text: `heard ${bytes(4800 + 49 * 320 + 10 * 320)} bytes`,
      });
      // A second utterance on the same stream gets the same (long-lived) decoder and its own count.
      const [pid] = stt.pool.pids;
      for (const frame of [...frames(5, 0), ...frames(3, 3000)]) stream.push(frame);
      stream.flush();
      await until(() => results.got.length === 2, 'the second final');
      expect(results.got[1]!.text).toBe(`heard ${bytes(5 * 320 + 320 + 2 * 320)} bytes`);
      expect(stt.pool.pids).toEqual([pid]);
      stream.close();
    } finally {
      await stt.close();
    }
  });

  it('sends nothing to a decoder for audio that never gets loud, but still answers the flush', async () => {
    const stt = await createPocketSphinxSTT({ binary: counting, modelDir, poolSize: 1 });
    try {
      const stream = stt.stream();
      const results = collect(stream);
      for (const frame of frames(100, 40)) stream.push(frame);
      expect(stt.pool.leased + stt.pool.waiting).toBe(0);
      stream.flush();
      await until(() => results.got.length === 1, 'the final');
      expect(results.got[0]).toMatchObject({ kind: 'final', text: '' });
      stream.close();
    } finally {
      await stt.close();
    }
  });

  it('gives up a decoder that does not get ready in time and starts another, waiting longer each time', async () => {
    const clock = createManualClock();
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const stt = await createPocketSphinxSTT({
      binary: neverOpens,
      modelDir,
      poolSize: 1,
      startTimeoutMs: 100,
      clock,
      logger: createLogger({ level: 'warn', destination }),
    });
    try {
      await expect(stt.ready()).rejects.toMatchObject({ code: 'stt_failed', retryable: true });
      const [first] = stt.pool.pids;
      await until(() => lines.length === 1, 'the warning');
      expect(JSON.parse(lines[0]!)).toMatchObject({
        msg: 'pocketsphinx decoder replaced',
        backoffMs: 500,
        err: expect.stringContaining('did not open its audio pipe within 100 ms'),
      });
      expect(stt.pool.pids).toEqual([]);
      clock.advance(500);
      await until(() => stt.pool.pids.length === 1, 'a fresh decoder');
      expect(stt.pool.pids[0]).not.toBe(first);
      await until(() => lines.length === 2, 'the second warning');
      expect(JSON.parse(lines[1]!)).toMatchObject({ backoffMs: 1000 });
    } finally {
      await stt.close();
    }
  });

  it('gives a decoder handed an utterance late the held audio’s length to decode it, and still catches a stall', async () => {
    const clock = createManualClock();
    const stt = await createPocketSphinxSTT({
      binary: answersOnce,
      modelDir,
      poolSize: 1,
      clock,
      utteranceTimeoutMs: 3000,
    });
    try {
      await stt.ready();
      const holder = stt.stream();
      for (const frame of frames(10, 3000)) holder.push(frame);
      const waiter = stt.stream();
      const results = collect(waiter);
      let over = false;
      void results.done.then(() => (over = true));
      // 3 s of speech, held while the holder has the only decoder.
      for (const frame of frames(150, 3000)) waiter.push(frame);
      expect(stt.pool.waiting).toBe(1);
      waiter.flush();
      clock.advance(2500);
      holder.close();
      await until(() => stt.pool.leased === 1 && stt.pool.waiting === 0, 'the late lease');
      // 500 ms were left of the deadline, and a flat floor would allow 1 s: both have passed here.
      clock.advance(1000);
      await new Promise((resolve) => setImmediate(resolve));
      expect([over, results.got]).toEqual([false, []]);
      // The held audio's length (3 s) from the lease: then the stalled decoder is given up.
      clock.advance(2000);
      const error = await results.done;
      expect(error).toMatchObject({ code: 'stt_failed', retryable: true });
      expect((error as Error).message).toContain('within 3000 ms');
    } finally {
      await stt.close();
    }
  });

  it('fails the utterance, retryably, when a decoder answers out of turn', async () => {
    const stt = await createPocketSphinxSTT({ binary: outOfTurn, modelDir, poolSize: 1 });
    try {
      const stream = stt.stream();
      const results = collect(stream);
      for (const frame of frames(10, 3000)) stream.push(frame);
      stream.flush();
      const error = await results.done;
      expect(error).toMatchObject({ code: 'stt_failed', retryable: true });
      expect((error as Error).message).toContain('printed a result out of turn');
    } finally {
      await stt.close();
    }
  });
});
