// Benchmark entry: `npm run bench` runs every case; `npm run bench -- api` picks cases by name.
// Each case writes its own section of bench/RESULTS.md. Child servers and temp dirs are removed at
// the end, also on failure, and a watchdog stops the run if it overruns.
import { runApiCase, type CaseContext } from './api.ts';
import { browserCallPhaseSeconds, runBrowserCallCase } from './browser-call.ts';
import { callPhaseSeconds, runCallsCase } from './calls.ts';
import { campaignPhaseSeconds, runCampaignCase } from './campaign.ts';
import { chatPhaseSeconds, runChatCase } from './chat.ts';
import { consolePhaseSeconds, runConsoleCase } from './console.ts';
import { failoverPhaseSeconds, runFailoverCase } from './failover.ts';
import { fliteVoicesPhaseSeconds, runFliteVoicesCase } from './flite-voices.ts';
import { loadSettings, runCleanups } from './lib.ts';
import { overloadPhaseSeconds, runOverloadCase } from './overload.ts';
import { runSimFirstCallCase, simFirstCallPhaseSeconds } from './sim-first-call.ts';
import { runSipCase, sipPhaseSeconds } from './sip.ts';
import { runStartCase, startPhaseSeconds } from './start.ts';
import { runSttCase, sttPhaseSeconds } from './stt.ts';
import { runTtsCase } from './tts.ts';
import { runVadCase, vadPhaseSeconds } from './vad.ts';
import { runVoiceCase, voicePhaseSeconds } from './voice.ts';
import { runWebhooksCase, webhookPhaseSeconds } from './webhooks.ts';
import { runWsMediaCase, wsMediaPhaseSeconds } from './ws-media.ts';

interface BenchCase {
  run(ctx: CaseContext): Promise<void>;
  /** Rough upper bound of the case's load time, in seconds, for the watchdog. */
  loadSeconds(ctx: CaseContext): number;
}

const CASES: Record<string, BenchCase> = {
  // 2 endpoints x 2 servers x (warm-up + measured run).
  api: { run: runApiCase, loadSeconds: ({ settings: s }) => 4 * (s.warmupS + s.durationS) },
  // 2 servers x (warm-up + 2 measured runs), plus 2 x 2,000 sequential messages and chat creation.
  chat: {
    run: runChatCase,
    loadSeconds: ({ settings: s }) => 2 * (s.warmupS + 2 * chatPhaseSeconds(s.durationS)) + 30,
  },
  // Warm-ups, then N plain POSTs and N signed deliveries (enqueue + drain).
  webhooks: { run: runWebhooksCase, loadSeconds: ({ settings: s }) => 3 * webhookPhaseSeconds(s.durationS) },
  // Warm-up, then N sim calls and N bare conversations.
  calls: { run: runCallsCase, loadSeconds: ({ settings: s }) => 3 * callPhaseSeconds(s.durationS) },
  // Per store: raw and API ingest, the listing, then three dialing runs (busy, answered, refill).
  campaign: { run: runCampaignCase, loadSeconds: ({ settings: s }) => campaignPhaseSeconds(s.durationS) },
  // The console's bundle, then its list pages on a seeded store per dialect (PARLEY_BENCH_CONSOLE_*).
  console: { run: runConsoleCase, loadSeconds: () => consolePhaseSeconds() },
  // The console's browser test call against the SDK's web call from Node, alternating (BENCH_BROWSER_CALL_ROUNDS).
  'browser-call': { run: runBrowserCallCase, loadSeconds: () => browserCallPhaseSeconds() },
  // Accuracy on flite speech (clean and noisy) for both VADs, throughput, then 3 real-time runs.
  vad: { run: runVadCase, loadSeconds: ({ settings: s }) => vadPhaseSeconds(s.durationS) },
  // Per voice and sentence length: 5 main-thread syntheses and 5 through the pool (about 30 s).
  tts: { run: runTtsCase, loadSeconds: () => 120 },
  // 50 flite sentences in real time, 2 streams at a time: 16 kHz, 8 kHz mu-law, second pass on.
  stt: { run: runSttCase, loadSeconds: () => sttPhaseSeconds() },
  // 48 callee answers in each of the 5 flite voices, heard by PocketSphinx at 16 kHz and 8 kHz mu-law.
  'flite-voices': { run: runFliteVoicesCase, loadSeconds: () => fliteVoicesPhaseSeconds() },
  // The sim's first call with the offline speech: the callee's words found in the transcript (BENCH_SIM_CALLS).
  'sim-first-call': { run: runSimFirstCallCase, loadSeconds: () => simFirstCallPhaseSeconds() },
  // Platform share (1 and 200 calls), concurrent calls with API load (PARLEY_BENCH_VOICE_*), offline defaults.
  voice: { run: runVoiceCase, loadSeconds: () => voicePhaseSeconds() },
  // WS media test calls from real clients in a child process: share (1 and 200 calls), steps (PARLEY_BENCH_WS_MEDIA_*).
  'ws-media': { run: runWsMediaCase, loadSeconds: () => wsMediaPhaseSeconds() },
  // Concurrent SIP calls from sipp (RTP peers in a child process); beside ws-media when it ran first (PARLEY_BENCH_SIP_*).
  sip: { run: runSipCase, loadSeconds: () => sipPhaseSeconds() },
  // Speech failover to the offline engines: TTS and STT, refuse/drop/stall against a baseline (BENCH_FAILOVER_TRIALS).
  failover: { run: runFailoverCase, loadSeconds: () => failoverPhaseSeconds() },
  // From spawning a node to its first 200 on /readyz: the build, tsx cold and warm, in turns (BENCH_START_RUNS).
  start: { run: runStartCase, loadSeconds: () => startPhaseSeconds() },
  // Sim voice calls through the API: the capacity (gate off), then twice it with the load gate on and off (PARLEY_BENCH_OVERLOAD_*).
  overload: { run: runOverloadCase, loadSeconds: () => overloadPhaseSeconds() },
};

const SETUP_ALLOWANCE_S = 60;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => !(a in CASES));
  if (unknown.length > 0) {
    console.error(`unknown case(s): ${unknown.join(', ')}; known: ${Object.keys(CASES).join(', ')}`);
    return 2;
  }
  const names = args.length > 0 ? args : Object.keys(CASES);
  const ctx: CaseContext = {
    command: [
      ...Object.keys(process.env)
        .filter((k) => k.startsWith('BENCH_'))
        .sort()
        .map((k) => `${k}=${process.env[k]}`),
      'npm run bench',
      ...(args.length > 0 ? ['--', ...args] : []),
    ].join(' '),
    settings: loadSettings(),
  };

  const budgetS = names.reduce((sum, n) => sum + SETUP_ALLOWANCE_S + CASES[n]!.loadSeconds(ctx), 0);
  const watchdog = setTimeout(() => {
    console.error(`bench: still running after ${budgetS} s, giving up`);
    void runCleanups().finally(() => process.exit(1));
  }, budgetS * 1000);
  watchdog.unref();

  let failed = false;
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`bench: ${signal}, cleaning up`);
    void runCleanups().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    for (const name of names) {
      console.log(`== case ${name} ==`);
      try {
        await CASES[name]!.run(ctx);
      } catch (err) {
        failed = true;
        console.error(`case ${name} failed:`, err instanceof Error ? err.message : err);
      } finally {
        await runCleanups();
      }
    }
  } finally {
    clearTimeout(watchdog);
  }
  return failed ? 1 : 0;
}

process.exitCode = await main();
