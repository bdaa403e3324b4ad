// Case `api`: read throughput of the agents API against a bare Fastify baseline.
//
// Parley runs in a child process on the embedded SQLite store (fresh temp data dir), seeded with
// 1,000 agents over HTTP. A second child is a bare Fastify 5 app returning, from memory, the exact
// JSON bodies Parley returned for the same two requests, on the same route paths. autocannon (in
// this process) loads each endpoint on each server with the same connections and duration; the
// Parley/baseline ratio is the figure of merit since both run on the same machine in the same run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BENCH_API_KEY,
  freePort,
  machine,
  markdownTable,
  measure,
  startParley,
  startServer,
  tempDir,
  textTable,
  writeResultsSection,
  type LoadSettings,
  type Measurement,
} from './lib.ts';

export const TARGET_RATIO = 0.5;
const AGENT_COUNT = 1000;
const SEED_CONCURRENCY = 10;
const API_KEY = BENCH_API_KEY;

export interface CaseContext {
  command: string;
  settings: LoadSettings;
}

const PROMPT_BASE =
  'You are Maya, a friendly scheduling assistant for Northwind Dental. Greet the caller, confirm ' +
  'their full name and date of birth, then offer the next three open appointment slots from ' +
  '{available_slots}. Keep answers short and warm, never give medical advice, and if the caller ' +
  'asks for a human, say a team member will call back within one business day. Always repeat the ' +
  'chosen slot back to the caller before ending the call, and speak in the language of the caller.';

function agentBody(i: number) {
  return {
    type: 'outbound',
    name: `Bench agent ${String(i).padStart(4, '0')}`,
    agent: {
      prompt: `${PROMPT_BASE} Internal reference: campaign ${i % 17}, agent ${i}.`,
      greeting_message: `Hi, this is Maya from Northwind Dental calling about your appointment (#${i}).`,
      voice_id: `voice-${(i % 8) + 1}`,
      llm: 'gpt-4o-mini',
      end_call_reasons_v2: [
        {
          reason: 'The caller has booked or confirmed an appointment.',
          closing_message_mode: 'static',
          closing_message: 'Thank you, we look forward to seeing you. Goodbye!',
        },
        {
          reason: 'The caller asks not to be called again.',
          closing_message_mode: 'prompt',
          closing_message: 'Apologize briefly and confirm they will not be called again.',
        },
      ],
    },
    max_duration: { duration_seconds: 600, is_enabled: true },
  };
}

async function seedAgents(baseUrl: string, auth: Record<string, string>): Promise<string[]> {
  const ids: string[] = new Array<string>(AGENT_COUNT);
  let next = 0;
  const worker = async () => {
    while (next < AGENT_COUNT) {
      const i = next++;
      const res = await fetch(`${baseUrl}/v2/assistants`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(agentBody(i)),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`seeding agent ${i}: HTTP ${res.status}: ${text}`);
      const json = JSON.parse(text) as { response?: { model_id?: string } };
      const id = json.response?.model_id;
      if (!id) throw new Error(`seeding agent ${i}: no model_id in ${text}`);
      ids[i] = id;
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return ids;
}

async function getText(url: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}: ${text}`);
  return text;
}

interface Endpoint {
  label: string;
  /** The route template both servers register. */
  route: string;
  /** The request path and query. */
  path: string;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);

export async function runApiCase(ctx: CaseContext): Promise<void> {
  const { settings } = ctx;
  const started = new Date();
  const auth = { authorization: `Bearer ${API_KEY}` };

  // 1. Parley, in a child process, on SQLite in a fresh data dir.
  const parley = await startParley('parley', 'bench/servers/parley.ts');

  // 2. Seed the agents and pick one from the middle.
  const seedStart = performance.now();
  const ids = await seedAgents(parley.url, auth);
  const seedMs = performance.now() - seedStart;
  const agentId = ids[Math.floor(AGENT_COUNT / 2)]!;
  console.log(`seeded ${AGENT_COUNT} agents in ${fmt(seedMs)} ms; reading agent ${agentId}`);

  const endpoints: Endpoint[] = [
    {
      label: 'GET /v2/assistants/{id}',
      route: '/v2/assistants/:model_id',
      path: `/v2/assistants/${agentId}`,
    },
    { label: 'GET /v2/assistants/?limit=20', route: '/v2/assistants/', path: '/v2/assistants/?limit=20' },
  ];

  // 3. The baseline serves exactly what Parley answered, on the same paths.
  const bodies = await Promise.all(endpoints.map((e) => getText(`${parley.url}${e.path}`, auth)));
  for (const [i, body] of bodies.entries()) {
    const parsed = JSON.parse(body) as { status?: string; response?: { assistants?: unknown[] } };
    const count = parsed.response?.assistants?.length;
    const expected = i === 0 ? 1 : 20;
    if (parsed.status !== 'ok' || count !== expected) {
      throw new Error(`${endpoints[i]!.label}: expected ${expected} assistants, got ${count}`);
    }
  }
  const routesFile = join(tempDir('bare'), 'routes.json');
  writeFileSync(
    routesFile,
    JSON.stringify(endpoints.map((e, i) => ({ path: e.route, body: JSON.parse(bodies[i]!) as unknown }))),
  );
  const bare = await startServer({
    name: 'bare',
    script: 'bench/servers/bare.ts',
    env: { PORT: String(await freePort()), BENCH_BARE_ROUTES: routesFile },
  });
  console.log(`baseline listening on ${bare.url} (pid ${bare.pid})`);
  for (const [i, e] of endpoints.entries()) {
    const got = await getText(`${bare.url}${e.path}`);
    if (got !== bodies[i]) throw new Error(`baseline body for ${e.label} differs from Parley's`);
  }

  // 4. Load each endpoint on Parley, then on the baseline.
  const results: { endpoint: Endpoint; parley: Measurement; bare: Measurement }[] = [];
  for (const endpoint of endpoints) {
    console.log(`loading ${endpoint.label} on parley...`);
    const p = await measure(`${parley.url}${endpoint.path}`, auth, settings);
    console.log(`loading ${endpoint.label} on baseline...`);
    const b = await measure(`${bare.url}${endpoint.path}`, {}, settings);
    results.push({ endpoint, parley: p.result, bare: b.result });
    for (const [name, m] of [
      ['parley warm-up', p.warmup],
      ['baseline warm-up', b.warmup],
    ] as const) {
      if (m && (m.non2xx > 0 || m.errors > 0)) {
        throw new Error(`${endpoint.label} ${name}: ${m.non2xx} non-2xx, ${m.errors} errors`);
      }
    }
  }

  // 5. Report.
  const header = [
    'Endpoint',
    'Parley req/s',
    'Baseline req/s',
    'Ratio',
    `Target ≥ ${TARGET_RATIO}`,
    'Parley p99 ms',
    'Baseline p99 ms',
    'Parley p50 ms',
    'Baseline p50 ms',
    'Non-2xx / errors (Parley, baseline)',
  ];
  const rows = results.map(({ endpoint, parley: p, bare: b }) => {
    const ratio = p.reqPerSec / b.reqPerSec;
    return [
      `\`${endpoint.label}\``,
      fmt(p.reqPerSec),
      fmt(b.reqPerSec),
      fmt(ratio, 2),
      ratio >= TARGET_RATIO ? 'met' : '**not met**',
      fmt(p.p99Ms, 1),
      fmt(b.p99Ms, 1),
      fmt(p.p50Ms, 1),
      fmt(b.p50Ms, 1),
      `${p.non2xx} / ${p.errors + p.timeouts}, ${b.non2xx} / ${b.errors + b.timeouts}`,
    ];
  });
  const plain = rows.map((r) => r.map((c) => c.replaceAll('`', '').replaceAll('**', '')));
  console.log(`\n${textTable(header, plain)}\n`);

  const failures: string[] = [];
  for (const { endpoint, parley: p, bare: b } of results) {
    for (const [name, m] of [
      ['Parley', p],
      ['baseline', b],
    ] as const) {
      if (m.non2xx > 0 || m.errors > 0) {
        failures.push(
          `${endpoint.label} on ${name}: ${m.non2xx} non-2xx, ${m.errors} errors (${m.timeouts} timeouts)`,
        );
      }
    }
  }
  if (failures.length > 0) throw new Error(`not all responses were 2xx:\n  ${failures.join('\n  ')}`);

  const unmet = results.filter((r) => r.parley.reqPerSec / r.bare.reqPerSec < TARGET_RATIO);
  const section = `## Case \`api\`: agents read API vs. bare Fastify

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Command: \`${ctx.command}\`
- Load: autocannon, ${settings.connections} connections, ${settings.warmupS} s warm-up (discarded) then
  ${settings.durationS} s measured, per endpoint and server, one after the other
  (\`BENCH_DURATION_S\`, \`BENCH_CONNECTIONS\`, \`BENCH_WARMUP_S\` change these).
- Parley: child process, embedded SQLite in a fresh temp data dir, \`PARLEY_LOG_LEVEL=warn\`,
  ${AGENT_COUNT} outbound agents seeded over HTTP (\`POST /v2/assistants\`, ${fmt(seedMs)} ms),
  requests sent with the bootstrap key as \`Authorization: Bearer\`.
- Baseline: child process, bare Fastify 5 (no plugins, auth or database) serving the bodies Parley
  returned for the same requests (checked byte-identical), from memory, on the same route paths;
  the handler returns the parsed object, so Fastify serializes it per request.
- All measured responses were 2xx. Req/s is autocannon's mean of per-second samples.
- Target: Parley req/s ≥ ${TARGET_RATIO} × baseline req/s for each endpoint —
  ${unmet.length === 0 ? 'met for all endpoints.' : `**not met** for ${unmet.map((r) => `\`${r.endpoint.label}\``).join(', ')}.`}

${markdownTable(header, rows)}

The machine is shared (other jobs may run), so absolute figures are noisy; the ratio compares the
two servers measured in the same run.
`;
  writeResultsSection('api', section);
  console.log('wrote bench/RESULTS.md (section api)');
  if (unmet.length > 0) {
    console.log(`target ratio ${TARGET_RATIO} not met for: ${unmet.map((r) => r.endpoint.label).join(', ')}`);
  }
}
