// Case `sim-first-call`: does the sim's first call read as a conversation? The engine as
// `npm start` builds it (src/app.ts createEngine, the offline speech from `offlineSpeech` with sim
// calls in audio mode, the builtin model, the sim carrier in real time) places sim calls for a few
// agents, one at a time, each as a fresh install's first call. The sim callee's voice is wrapped
// to note each line it says (the sim knows what it said); the call's stored transcript has what
// the agent heard. Per call: the share of the callee's words found in the transcript's human lines
// (words matched in order: the longest common subsequence), and the word error rate (word edits /
// words said). Numbers are compared as words ("10" is said "ten"), contractions expanded.
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createEngine, offlineSpeech, type SpeechSetup } from '../src/app.ts';
import { silentLogger, systemClock } from '../src/core/index.ts';
import { createBuiltinLLM, createModelRouter, createSimMessaging } from '../src/providers/index.ts';
import { matchedWords, wordErrorRate, words } from '../src/providers/testing/index.ts';
import { createStore } from '../src/store/index.ts';
import type { CaseContext } from './api.ts';
import { intEnv, machine, markdownTable, onCleanup, tempDir, textTable, writeResultsSection } from './lib.ts';

/** Agents a first try would make: the README's, and a few like it. */
export const FIRST_AGENTS = [
  {
    name: 'Solar (README)',
    agent: {
      prompt: 'You are Sam from SunCo. Ask if they own their home.',
      greeting_message: 'Hi {name}, this is Sam from SunCo.',
    },
  },
  {
    name: 'Solar, two questions',
    agent: {
      prompt: 'You are Sam from SunCo. Ask if they own their home. Ask what time works best for them.',
      greeting_message: 'Hi {name}, this is Sam from SunCo.',
    },
  },
  {
    name: 'Dental reminder',
    agent: {
      prompt:
        'You are Mia from Bright Smile Dental. You call patients to confirm their cleaning. Ask if they can come next week. Ask whether they prefer mornings or afternoons.',
      greeting_message_mode: 'agent_dynamic' as const,
    },
  },
  {
    name: 'Power bill',
    agent: {
      prompt:
        'You are Alex from City Power. You are calling about their electricity bill. Ask how much they pay each month. Ask if they would like a lower rate.',
      greeting_message_mode: 'agent_dynamic' as const,
    },
  },
];
const FINAL = new Set(['completed', 'failed', 'canceled', 'no-answer', 'busy']);
const CALL_LIMIT_MS = 180_000;

export const simFirstCallPhaseSeconds = (): number => 60 + FIRST_AGENTS.length * callsPerAgent() * 120;
const callsPerAgent = () => intEnv('BENCH_SIM_CALLS', 2, 1, 20);

const fmt = (n: number, digits = 0) => n.toFixed(digits);

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEENS = [
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
function numberWords(n: number): string {
  if (n < 10) return ONES[n]!;
  if (n < 20) return TEENS[n - 10]!;
  if (n < 100) return `${TENS[Math.floor(n / 10)]}${n % 10 ? ` ${ONES[n % 10]}` : ''}`;
  return `${ONES[Math.floor(n / 100)]} hundred${n % 100 ? ` ${numberWords(n % 100)}` : ''}`;
}
const CONTRACTIONS: Record<string, string> = {
  "i'm": 'i am',
  "it's": 'it is',
  "that's": 'that is',
  "i'd": 'i would',
  "don't": 'do not',
  "i'll": 'i will',
  "you're": 'you are',
  "can't": 'can not',
  cannot: 'can not',
  "i've": 'i have',
  "what's": 'what is',
  "let's": 'let us',
  "we're": 'we are',
  "didn't": 'did not',
  "isn't": 'is not',
  "won't": 'will not',
};

/** Words as said and heard alike: lower case, numbers in words, contractions expanded. */
export function spokenWords(text: string): string[] {
  return words(
    text.replace(/\d+/g, (d) =>
      d.length <= 3 ? ` ${numberWords(Number(d))} ` : ` ${[...d].map((c) => ONES[Number(c)]).join(' ')} `,
    ),
  ).flatMap((w) => (CONTRACTIONS[w] ?? w).split(' '));
}

interface FirstCall {
  agent: string;
  status: string;
  reason: string;
  said: string[];
  human: string[];
  transcript: string[];
  saidWords: number;
  matched: number;
  wer: number;
  seconds: number;
}

/** The speech as `offlineSpeech` gives it, with the callee's voice noting what it says. */
function noting(speech: SpeechSetup, said: string[]): SpeechSetup {
  const farEnd = speech.farEnd;
  if (!farEnd) return speech;
  return {
    ...speech,
    farEnd: {
      speak(text, signal) {
        said.push(text);
        return farEnd.speak(text, signal);
      },
      listen: (heard, signal) => farEnd.listen(heard, signal),
    },
  };
}

export async function runSimFirstCallCase(ctx: CaseContext): Promise<void> {
  const started = new Date();
  const loadBefore = loadavg()[0]!;
  const dir = tempDir('sim-first-call');
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const speech = await offlineSpeech({ logger: silentLogger(), simMode: 'audio' });
  if (!speech.farEnd) throw new Error(`sim calls need PocketSphinx: ${JSON.stringify(speech.choice)}`);
  const said: string[] = [];
  const store = await createStore({ dialect: 'sqlite', file: join(dir, 'parley.db') }, systemClock);
  const engine = createEngine({
    store,
    models: createModelRouter({ platform: createBuiltinLLM() }),
    clock: systemClock,
    logger: silentLogger(),
    node: 'bench',
    simSpeed: 1,
    speech: noting(speech, said),
    allowPrivateNetwork: true,
    messaging: { sim: createSimMessaging() },
  });
  const calls: FirstCall[] = [];
  try {
    await store.migrate();
    await engine.start();
    const workspace = await store.workspaces.create({
      name: 'bench',
      plan: 'enterprise',
      maxConcurrentCalls: 1,
    });
    for (let round = 0; round < callsPerAgent(); round += 1) {
      for (const [i, spec] of FIRST_AGENTS.entries()) {
        // A fresh agent per call: each is the first call of its agent.
        const agent = await store.agents.create(workspace.id, {
          type: 'outbound',
          name: spec.name,
          spec: { agent: spec.agent },
        });
        said.length = 0;
        const t0 = performance.now();
        const { call } = await engine.calls.place(workspace, {
          agent,
          from: '+14155550100',
          provider: 'sim',
          to: `+1415555${1200 + round * 10 + i}`,
          leadName: 'Ann',
          variables: {},
        });
        let record = await store.calls.getById(call.id);
        while (record && !FINAL.has(record.status) && performance.now() - t0 < CALL_LIMIT_MS) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          record = await store.calls.getById(call.id);
        }
        // The transcript is written once the call's after-work is done.
        await engine.calls.idle();
        record = await store.calls.getById(call.id);
        const lines = (record?.transcript ?? '').split('\n');
        const human = lines.filter((l) => l.startsWith('human: ')).map((l) => l.slice(7));
        const saidWords = spokenWords(said.join(' '));
        const heardWords = spokenWords(human.join(' '));
        const entry: FirstCall = {
          agent: spec.name,
          status: record?.status ?? 'missing',
          reason: String(record?.endCallReason ?? ''),
          said: [...said],
          human,
          transcript: lines,
          saidWords: saidWords.length,
          matched: matchedWords(saidWords, heardWords),
          wer: wordErrorRate(saidWords.join(' '), heardWords.join(' ')),
          seconds: (performance.now() - t0) / 1000,
        };
        calls.push(entry);
        console.log(
          `${spec.name} (${entry.status}, ${entry.reason}, ${fmt(entry.seconds)} s): ${entry.matched} / ${entry.saidWords} words heard, WER ${fmt(entry.wer * 100)}%`,
        );
        console.log(`  transcript:\n    ${lines.join('\n    ')}`);
        console.log(`  callee said:\n    ${entry.said.join('\n    ')}`);
      }
    }
  } finally {
    await engine.stop(0);
    await store.close();
    await speech.close();
  }

  const loadAfter = loadavg()[0]!;
  const totalSaid = calls.reduce((n, c) => n + c.saidWords, 0);
  const totalMatched = calls.reduce((n, c) => n + c.matched, 0);
  const werAll = calls.reduce((n, c) => n + c.wer * c.saidWords, 0) / Math.max(1, totalSaid);
  const header = [
    'Agent',
    'Calls',
    'Completed',
    'Callee words said',
    'Found in human lines',
    'WER',
    'Worst call found',
  ];
  const rows = FIRST_AGENTS.map((spec) => {
    const mine = calls.filter((c) => c.agent === spec.name);
    const s = mine.reduce((n, c) => n + c.saidWords, 0);
    const m = mine.reduce((n, c) => n + c.matched, 0);
    const w = mine.reduce((n, c) => n + c.wer * c.saidWords, 0) / Math.max(1, s);
    const worst = Math.min(...mine.map((c) => c.matched / Math.max(1, c.saidWords)));
    return [
      spec.name,
      String(mine.length),
      String(mine.filter((c) => c.status === 'completed').length),
      String(s),
      `${m} (${fmt((m / Math.max(1, s)) * 100, 1)}%)`,
      `${fmt(w * 100, 1)}%`,
      `${fmt(worst * 100, 0)}%`,
    ];
  });
  rows.push([
    'all',
    String(calls.length),
    String(calls.filter((c) => c.status === 'completed').length),
    String(totalSaid),
    `${totalMatched} (${fmt((totalMatched / Math.max(1, totalSaid)) * 100, 1)}%)`,
    `${fmt(werAll * 100, 1)}%`,
    `${fmt(Math.min(...calls.map((c) => c.matched / Math.max(1, c.saidWords))) * 100, 0)}%`,
  ]);
  console.log(textTable(header, rows));
  console.log(
    `SUMMARY found=${fmt((totalMatched / Math.max(1, totalSaid)) * 100, 1)}% wer=${fmt(werAll * 100, 1)}%`,
  );
  const example = calls[0];
  writeResultsSection(
    'sim-first-call',
    `## Case \`sim-first-call\`: the sim's first call, heard (issue 23)

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Load: 1-minute load average ${fmt(loadBefore, 1)} at the start, ${fmt(loadAfter, 1)} at the end
  (the machine is shared: other work delays the decoders, which can cut or merge lines).
- Command: \`${ctx.command}\`
- What: the engine as \`npm start\` builds it (src/app.ts \`createEngine\`, \`offlineSpeech\` with sim calls
  in audio mode, the builtin model, the sim carrier in real time, embedded SQLite), one call at a
  time, ${callsPerAgent()} per agent, each to a fresh agent (its first call), the lead named Ann.
  The sim callee's voice notes every line it says; the stored transcript's \`human:\` lines are
  what the agent heard. Found: the callee's words matched in order in the human lines (longest
  common subsequence) over the words it said; WER: word edits / words said. Numbers compared as
  words, contractions expanded. Target: found ≥ 90%.

${markdownTable(header, rows)}

${
  example
    ? `The first call (${example.agent}): the transcript as stored, then what the callee said.\n\n\`\`\`\n${example.transcript.join('\n')}\n\n${example.said.map((l) => `callee said: ${l}`).join('\n')}\n\`\`\``
    : ''
}
`,
  );
}
