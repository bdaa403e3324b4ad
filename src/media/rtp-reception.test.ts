import { describe, expect, it } from 'vitest';
import { RtpReception } from './rtp-reception.ts';

// RFC 3550 reception statistics, now shared by WebSocket media and SIP's RTP.

const packet = (sequence: number, timestamp: number, ssrc = 7) => ({ sequence, timestamp, ssrc });

describe('RtpReception', () => {
  it('counts the packets the sequence numbers say never came, across the 16-bit wrap', () => {
    const reception = new RtpReception(8000);
    for (const seq of [65534, 65535, 1, 2]) reception.add(packet(seq, seq * 160), undefined);
    expect(reception.expected).toBe(5);
    expect(reception.lost).toBe(1);
    expect(reception.jitterMs).toBeNull();
  });

  it('measures interarrival jitter against the arrival times given', () => {
    const reception = new RtpReception(8000);
    // Steady 20 ms packets arriving every 20 ms: no jitter.
    for (let i = 0; i < 10; i += 1) reception.add(packet(i, i * 160), i * 20);
    expect(reception.jitterMs).toBe(0);
    // One packet 16 ms late: |D| = 16 ms, J = 16 / 16 = 1 ms.
    reception.add(packet(10, 1600), 216);
    expect(reception.jitterMs).toBeCloseTo(1, 6);
  });

  it('keeps what an earlier stream counted when a new SSRC starts', () => {
    const reception = new RtpReception(8000);
    reception.add(packet(10, 0, 1), 0);
    reception.add(packet(12, 320, 1), 40);
    reception.add(packet(500, 0, 2), 60);
    expect(reception.expected).toBe(4);
    expect(reception.lost).toBe(1);
  });
});
