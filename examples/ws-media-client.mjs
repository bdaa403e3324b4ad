// Plays a WAV file into a WebSocket media test call (legacy flow) and saves what the agent said.
//
//   PARLEY_URL=http://127.0.0.1:8080 PARLEY_API_KEY=... \
//     node examples/ws-media-client.mjs <agent id> caller.wav agent.wav [seconds]
//
// caller.wav: 16-bit mono PCM at 16 kHz (sox in.wav -r 16000 -c 1 -b 16 caller.wav). The call
// uses codec l16 with payload framing: 640-byte frames of big-endian 16-bit samples every 20 ms.
// Parley sends nothing while the agent is silent, so agent.wav holds its lines back to back.
import { readFileSync, writeFileSync } from 'node:fs';
import WebSocket from 'ws';

const [agentId, input, output, seconds = '20'] = process.argv.slice(2);
if (!agentId || !input || !output) {
  console.error('usage: node examples/ws-media-client.mjs <agent id> <caller.wav> <agent.wav> [seconds]');
  process.exit(2);
}
const base = process.env.PARLEY_URL ?? 'http://127.0.0.1:8080';
const headers = { authorization: `Bearer ${process.env.PARLEY_API_KEY}`, 'content-type': 'application/json' };

// The caller's audio: the WAV's data chunk, little-endian samples.
const wav = readFileSync(input);
const dataAt = wav.indexOf('data') + 8;
if (wav.readUInt16LE(22) !== 1 || wav.readUInt32LE(24) !== 16000 || wav.readUInt16LE(34) !== 16)
  throw new Error(`${input} must be 16-bit mono PCM at 16 kHz`);
const caller = wav.subarray(dataAt);

const res = await fetch(`${base}/v2/calls/outbound-test-ws-media`, {
  method: 'POST',
  headers,
  body: JSON.stringify({ modelId: agentId, wsMediaCodec: 'l16', wsMediaFraming: 'payload' }),
});
if (!res.ok) throw new Error(`start failed: ${res.status} ${await res.text()}`);
const { callId, wsMediaUrl } = await res.json();
console.log(`call ${callId}`);

const heard = [];
const socket = new WebSocket(wsMediaUrl);
socket.on('message', (data, isBinary) => {
  if (isBinary) heard.push(Buffer.from(data));
  else console.log(String(data));
});
await new Promise((resolve) => socket.once('open', resolve));

// 20 ms frames in real time: little-endian from the file, big-endian on the wire.
let offset = 0;
const timer = setInterval(() => {
  if (offset >= caller.length || socket.readyState !== WebSocket.OPEN) return clearInterval(timer);
  const frame = Buffer.alloc(640);
  caller.copy(frame, 0, offset, offset + 640);
  frame.swap16();
  socket.send(frame);
  offset += 640;
}, 20);

setTimeout(() => socket.close(1000, 'done'), Number(seconds) * 1000);
await new Promise((resolve) => socket.once('close', resolve));
clearInterval(timer);

// What the agent said, as a 16 kHz WAV (big-endian on the wire, little-endian in the file).
const pcm = Buffer.concat(heard).swap16();
const header = Buffer.alloc(44);
header.write('RIFF', 0);
header.writeUInt32LE(36 + pcm.length, 4);
header.write('WAVEfmt ', 8);
header.writeUInt32LE(16, 16);
header.writeUInt16LE(1, 20);
header.writeUInt16LE(1, 22);
header.writeUInt32LE(16000, 24);
header.writeUInt32LE(32000, 28);
header.writeUInt16LE(2, 32);
header.writeUInt16LE(16, 34);
header.write('data', 36);
header.writeUInt32LE(pcm.length, 40);
writeFileSync(output, Buffer.concat([header, pcm]));
console.log(`saved ${(pcm.length / 32000).toFixed(1)} s of the agent to ${output}`);
