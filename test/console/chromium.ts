import { chromium, type Browser } from 'playwright-core';

// Debian's Chromium, headless, as the console's tests and bench/browser-call.ts start it. Without
// the background-networking flags it tries Google's hosts, which this machine's closed network
// refuses, many at a time.

const CHROMIUM = '/usr/bin/chromium';

/** A fake microphone that plays `wav` (looped), its audio allowed to play without a gesture. */
export const fakeMicrophone = (wav: string): string[] => [
  '--use-fake-device-for-media-stream',
  `--use-file-for-fake-audio-capture=${wav}`,
  '--autoplay-policy=no-user-gesture-required',
];

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}
