// Case `calls`: completed sim calls per second at PARLEY_SIM_SPEED=0, against the same
// conversations held without the platform.
//
// Parley's side is the real engine (src/app.ts createEngine) in this process on the embedded
// SQLite store (fresh temp dir): N calls placed through the call service, each admitted to a slot
// (max_concurrent_calls = CONCURRENCY), dialed on the sim carrier, talked through by the builtin
// agent and the builtin simulated person, analysed (heuristic), and finalized (status, usage,
// post-call webhook queued in the same transaction; the dispatcher is not started, so delivery is
// not part of this figure: the `webhooks` case measures it). The baseline runs the same N
// conversations (builtin agent session against the builtin simulated person, the same turns) in
// CONCURRENCY loops with no store, carrier, analysis or slots. Both are preceded by a warm-up.
import { join } from 'node:path';
import { ConversationSession, createSimulatedPerson } from '../src/conversation/index.ts';
import { systemClock } from '../src/core/index.ts';
import { createBuiltinLLM } from '../src/providers/index.ts';
import { createStore } from '../src/store/index.ts';
import type { CaseContext } from './api.ts';
import { offlineEngine } from './engine.ts';
import { machine, markdownTable, tempDir, textTable, writeResultsSection } from './lib.ts';

const CONCURRENCY = 50;
const WARMUP_CALLS = 100;
export const callCount = (durationS: number): number => Math.max(500, durationS * 100);
export const callPhaseSeconds = (durationS: number): number => 10 + callCount(durationS) / 20;

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const PROMPT = 'You are Sam from SunCo. Ask if they own their home. Ask what time works best for them.';
const GREETING = 'Hi {name}, this is Sam from SunCo.';

async function conversationsWithoutPlatform(n: number): Promise<number> {
  const llm = createBuiltinLLM();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const session = new ConversationSession({
          agent: { prompt: PROMPT, greeting_message: GREETING },
          llm,
          variables: { name: 'Ann Lee' },
          style: 'voice',
        });
        const person = createSimulatedPerson({
          llm,
          role: 'callee',
          persona: { name: 'Ann Lee' },
          seed: `c${i}`,
        });
        const greeting = (await session.start()).reply ?? '';
        let heard = await person.opening();
        let reply = await person.reply(greeting);
        for (let turn = 0; turn < 20 && !session.ended; turn++) {
          const answer = (await session.respond(heard || reply.text)).reply ?? '';
          heard = '';
          if (reply.hangUp) break;
          reply = await person.reply(answer);
        }
      }
    }),
  );
  return performance.now() - started;
}

export async function runCallsCase(ctx: CaseContext): Promise<void> {
  const started = new Date();
  const n = callCount(ctx.settings.durationS);
  const dir = tempDir('calls');
  const store = await createStore({ dialect: 'sqlite', file: join(dir, 'parley.db') }, systemClock);
  try {
    await store.migrate();
    const workspace = await store.workspaces.create({
      name: 'bench',
      plan: 'enterprise',
      maxConcurrentCalls: CONCURRENCY,
    });
    const engine = offlineEngine(store);
    const agent = await store.agents.create(workspace.id, {
      type: 'outbound',
      name: 'Solar',
      spec: {
        external_webhook_url: 'http://127.0.0.1:9/hook',
        agent: { prompt: PROMPT, greeting_message: GREETING },
      },
    });
    const place = async (count: number) => {
      const t0 = performance.now();
      for (let i = 0; i < count; i++) {
        await engine.calls.place(workspace, {
          agent,
          from: '+14155550100',
          provider: 'sim',
          to: `+1415555${5000 + (i % 4000)}`, // no test-number suffix: a person answers
          leadName: 'Ann Lee',
          variables: {},
        });
      }
      await engine.calls.idle();
      return performance.now() - t0;
    };
    await place(WARMUP_CALLS);
    await conversationsWithoutPlatform(WARMUP_CALLS);

    console.log(`parley: ${n} sim calls...`);
    const parleyMs = await place(n);
    console.log(`baseline: ${n} bare conversations...`);
    const bareMs = await conversationsWithoutPlatform(n);

    const all = await store.calls.list(workspace.id, { limit: 1, offset: 0, status: 'completed' });
    const expected = n + WARMUP_CALLS;
    if (all.total !== expected) throw new Error(`${all.total} of ${expected} calls completed`);
    const queued = await store.webhooks.listDeliveries(workspace.id, 'pending');
    if (queued.length !== expected) throw new Error(`${queued.length} webhooks queued, ${expected} expected`);

    const rate = (n / parleyMs) * 1000;
    const bareRate = (n / bareMs) * 1000;
    const header = ['Phase', 'Calls', 'Time s', 'Per second', 'Ratio to baseline'];
    const rows = [
      [
        'Parley: placed, admitted, dialed on sim, talked, analysed, finalized',
        String(n),
        fmt(parleyMs / 1000, 2),
        fmt(rate, 1),
        fmt(rate / bareRate, 2),
      ],
      [
        'Baseline: the same conversations, no platform',
        String(n),
        fmt(bareMs / 1000, 2),
        fmt(bareRate, 1),
        '1.00',
      ],
    ];
    console.log(textTable(header, rows));
    writeResultsSection(
      'calls',
      `
## Case \`calls\`: completed sim calls per second at PARLEY_SIM_SPEED=0

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Command: \`${ctx.command}\`
- Parley (this process): the real engine on embedded SQLite (fresh temp dir), max_concurrent_calls
  ${CONCURRENCY}; each call placed through the call service, admitted to a slot, dialed on the sim
  carrier, talked through by the builtin agent and the builtin simulated person (about 4 turns),
  analysed (heuristic), finalized with its usage and its post-call webhook queued in the same
  transaction (${queued.length} queued; delivery is the \`webhooks\` case).
- Baseline: the same conversations (builtin agent against the builtin person) from ${CONCURRENCY}
  loops, with no store, carrier, slots or analysis.
- Warm-up: ${WARMUP_CALLS} of each first, discarded. Calls per phase: \`BENCH_DURATION_S\` × 100
  (at least 500).

${markdownTable(header, rows)}

The ratio is the platform's cost around the conversation itself (both sides measured in the same
run); the machine is shared, so absolute figures are noisy.
`,
    );
    await engine.stop(0);
  } finally {
    await store.close();
  }
}
