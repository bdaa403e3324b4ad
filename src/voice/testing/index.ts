// Test doubles for the voice session: a scripted far end on a fake MediaLeg, and a runner that
// plays a whole call on a manual clock.
export { createFakeLeg, toneFrames, type FakeLeg, type FarEndStep, type PlayedFrame } from './fake-leg.ts';
export { runScriptedCall, type ScriptedCall, type ScriptedCallOptions } from './call-harness.ts';
