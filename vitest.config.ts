import { defineConfig } from 'vitest/config';

// Two groups, one after the other. The tests that run calls in real time (audio paced at 20 ms,
// PocketSphinx with its deadlines, SIP peers, killed processes) run one file at a time, as a
// loaded machine makes them late; the rest (API, store, units) run two files at a time, so
// `npm test` stays well under 15 minutes on a 2-CPU machine.
const REAL_TIME = [
  'test/e2e/**/*.test.ts',
  'test/sip/**/*.test.ts',
  'test/voice/**/*.test.ts',
  'test/api/ws-media*.test.ts',
  'test/api/twilio*.test.ts',
  'test/api/call-overload.test.ts',
  'src/telephony/**/*.test.ts',
  'src/providers/speech/**/*.test.ts',
];
const ALL = ['src/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The most any group runs at once; the real-time group asks for one.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ALL,
          exclude: REAL_TIME,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'real-time', include: REAL_TIME, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
