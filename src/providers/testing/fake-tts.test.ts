import { createFakeTTS } from './fake-speech.ts';
import { runTTSContract } from './tts-contract.ts';

runTTSContract('fake', () => createFakeTTS(), { speed: false });
// With a latency, segments are produced after the flush returns, as a real engine's are.
runTTSContract('fake with latency', () => createFakeTTS({ latencyMs: 30 }), { speed: false });
