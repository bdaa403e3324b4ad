import { readdirSync, readFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, spawnSiblingWorker } from '../../core/index.ts';
import { SESSION_RATE, mulawEncode, type AudioFrame } from '../../media/index.ts';
import { createRtpMedia } from './media.ts';
import { MEDIA_NICE } from './protocol.ts';
import { createRtpPeer } from './testing/peer.ts';

// RTP media in its worker (real time): the worker owns the sockets and codecs; the main thread
// only reads frames and events out of shared memory. A worker that dies is replaced and the call
// goes on on the same port with the same stream.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const BASE = 40_000 + 2 * Math.floor(Math.random() * 10_000);

async function until(check: () => boolean, what: string): Promise<void> {
  const giveUp = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > giveUp) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('RTP media in the media worker', () => {
  it('sends and receives a call from the worker, and carries on when the worker dies', async () => {
    const workers: Worker[] = [];
    const media = createRtpMedia({
      bindAddress: '127.0.0.1',
      portMin: BASE,
      portMax: BASE + 20,
      spawn: () => {
        const worker = spawnSiblingWorker(new URL('./media.ts', import.meta.url).href, 'media-worker');
        workers.push(worker);
        return worker;
      },
    });
    cleanups.push(() => media.close());
    const far = await createRtpPeer();
    cleanups.push(() => far.close());
    const endpoint = await media.allocate();
    expect(media.thread).toBe('worker');
    const frames: AudioFrame[] = [];
    const digits: string[] = [];
    endpoint.receive({ audio: (f) => void frames.push(f), dtmf: (d) => void digits.push(d) });
    endpoint.update({
      address: '127.0.0.1',
      port: far.port,
      codec: 'PCMU',
      payloadType: 0,
      telephoneEvent: 101,
      direction: 'sendrecv',
    });
    endpoint.play({ samples: new Int16Array(320).fill(3000), sampleRate: SESSION_RATE, at: 0 });
    await endpoint.drained();
    await far.waitFor(5);
    const speech = mulawEncode(new Int16Array(160).fill(5000));
    for (let seq = 0; seq < 10; seq += 1)
      far.sendRtp(
        { payloadType: 0, sequence: seq, timestamp: seq * 160, ssrc: 3, payload: speech },
        endpoint.port,
      );
    await until(() => frames.filter((f) => f.samples[0] !== 0).length === 10, 'ten frames of speech');
    expect(frames.every((f) => f.sampleRate === 8000)).toBe(true);
    expect(endpoint.linkStats()).toMatchObject({ framesIn: 10, packetLoss: 0 });

    // The worker stamps every packet it sends (send-timing.ts) where this thread reads it.
    const counted = media.sendTiming().packets.count;
    expect(counted).toBeGreaterThanOrEqual(far.packets.length);

    // The worker dies: a new one takes the port over and the stream goes on.
    const before = far.packets.at(-1)!;
    await workers[0]!.terminate();
    await until(() => workers.length === 2, 'a new worker');
    const count = far.packets.length;
    await far.waitFor(count + 5);
    const after = far.packets.at(-1)!;
    expect(after.ssrc).toBe(before.ssrc);
    expect(after.fromPort).toBe(endpoint.port);
    expect(((after.sequence - before.sequence) & 0xffff) > 0).toBe(true);
    // Its counts carry on where the dead worker's stopped.
    expect(media.sendTiming().packets.count).toBeGreaterThan(counted);
    const heard = frames.length;
    for (let seq = 10; seq < 15; seq += 1)
      far.sendRtp(
        { payloadType: 0, sequence: seq, timestamp: seq * 160, ssrc: 3, payload: speech },
        endpoint.port,
      );
    await until(() => frames.slice(heard).filter((f) => f.samples[0] !== 0).length === 5, 'speech after');
    endpoint.close();
    expect(media.inUse).toBe(0);
  });

  it('runs its thread at a raised priority where the system lets it, and says which', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const media = createRtpMedia({
      bindAddress: '127.0.0.1',
      portMin: BASE + 40,
      portMax: BASE + 60,
      logger,
    });
    cleanups.push(() => media.close());
    await until(
      () => lines.some((line) => line.includes('RTP media thread')),
      'the worker told its priority',
    );
    // Each thread's nice value: field 19 of /proc/self/task/<tid>/stat, the 17th after "pid (comm) ".
    const nices = readdirSync('/proc/self/task').map((tid) => {
      try {
        return Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
      } catch {
        return Number.NaN; // a thread that ended meanwhile
      }
    });
    if (lines.some((line) => line.includes('runs at a raised priority'))) expect(nices).toContain(MEDIA_NICE);
    else expect(lines.join('')).toContain('could not raise its priority');
  });
});
