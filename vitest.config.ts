import { defineConfig } from 'vitest/config';

// Two groups, one after the other (sequence.groupOrder). First the API, store and unit tests, two
// files at a time: they wait on nothing real-time, so sharing the CPUs only slows them down. Then
// the tests that run calls in real time (paced audio, PocketSphinx deadlines, SIP peers, killed
// server processes), one file at a time, as a busy second core makes them late. In the first, a
// worker keeps its loaded modules from one file to the next (isolate: false): loading the app again
// for every file was about a third of its time (225 s of 550 s). The real-time files stay isolated:
// with modules kept, one fresh-clone run lost two of them to timing (a file's leftovers run on).
const REAL_TIME = [
  'test/e2e/**/*.test.ts',
  'test/sip/**/*.test.ts',
  'test/voice/**/*.test.ts',
  'test/sim/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/console/test-call.test.ts',
  'test/sdk/ws-media.test.ts',
  'test/api/ws-media*.test.ts',
  'test/api/twilio*.test.ts',
  'test/api/call-overload.test.ts',
  'test/api/call-slots.test.ts',
  'test/api/dialer.test.ts',
  'src/telephony/**/*.test.ts',
  'src/providers/speech/**/*.test.ts',
  'src/media/**/*.test.ts',
  'src/voice/**/*.test.ts',
];
const ALL = ['src/**/*.test.ts', 'cli/**/*.test.ts', 'console/**/*.test.ts', 'test/**/*.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ALL,
          exclude: REAL_TIME,
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'real-time',
          include: REAL_TIME,
          maxWorkers: 1,
          isolate: true,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
