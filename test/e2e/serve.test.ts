import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  http,
  postgresDeployment,
  runCli,
  sqliteDeployment,
  startServer,
  type Deployment,
  type RunningServer,
} from './harness.ts';

// The real server process, started the way `npm start` starts it, driven over HTTP on a real port,
// with the real CLI working against the same store while it runs.

const deployments: { name: string; make: () => Promise<Deployment> }[] = [
  { name: 'sqlite', make: sqliteDeployment },
];
const pgUrl = process.env.PARLEY_TEST_DATABASE_URL;
if (pgUrl) deployments.push({ name: 'postgres', make: () => postgresDeployment(pgUrl) });

const keyLine = /^Parley API key \(shown once, also saved to (.+)\): (pk_\S+)$/;

for (const { name, make } of deployments) {
  describe(`parley serve end to end [${name}]`, () => {
    let dep: Deployment;
    let server: RunningServer;
    let key: string;

    beforeAll(async () => {
      dep = await make();
      server = await startServer(dep.env);
    }, 60_000);
    afterAll(async () => {
      await server?.stop('SIGKILL');
      await dep?.cleanup();
    });

    it('generates, prints once and saves the first key with mode 0600', async () => {
      const announced = server.lines.map((l) => keyLine.exec(l)).filter((m) => m !== null);
      expect(announced).toHaveLength(1);
      const [, file, printed] = announced[0]!;
      expect(file).toBe(join(dep.dataDir, 'bootstrap-api-key'));
      expect(readFileSync(file!, 'utf8').trim()).toBe(printed);
      expect(statSync(file!).mode & 0o777).toBe(0o600);
      key = printed!;
      // The key never reaches the structured log.
      expect(server.lines.filter((l) => l.startsWith('{') && l.includes(key))).toEqual([]);
      const probe = await http(server.url, 'GET', '/v2/assistants/', key);
      expect(probe.status).toBe(200);
      const ws = await http(server.url, 'GET', '/v2/workspace', key);
      expect(ws.json.response).toMatchObject({ name: 'default', plan: 'enterprise' });
    });

    it('answers health, readiness, metrics and the API reference', async () => {
      expect((await http(server.url, 'GET', '/healthz')).status).toBe(200);
      expect((await http(server.url, 'GET', '/readyz')).json).toEqual({ status: 'ready' });
      const metrics = await http(server.url, 'GET', '/metrics');
      expect(metrics.status).toBe(200);
      expect(String(metrics.json)).toContain('parley_http_requests_total');
      const doc = await http(server.url, 'GET', '/v2/openapi.json');
      expect(doc.json.openapi).toBe('3.1.0');
      expect(Object.keys(doc.json.paths)).toContain('/v2/assistants/{model_id}');
      const docs = await fetch(`${server.url}/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('<html');
    });

    it('runs the agent and number lifecycle over HTTP', async () => {
      const num = await http(server.url, 'POST', '/v2/custom-numbers', key, {
        phone_number: '+1 (415) 555-0142',
        provider: 'sim',
      });
      expect(num.status).toBe(200);
      expect(num.json.response.slug).toBe('14155550142');

      const created = await http(server.url, 'POST', '/v2/assistants', key, {
        type: 'outbound',
        name: 'Solar',
        agent: { prompt: 'Sell solar to {name}.', greeting_message: 'Hi!', voice_id: 'v1' },
      });
      expect(created.status).toBe(200);
      expect(created.json.details).toEqual({ phone: '', voice: 'v1' });
      const id = created.json.response.model_id as string;

      const attach = await http(server.url, 'PUT', `/v2/assistants/${id}/phone_numbers`, key, {
        phone_number_slugs: ['14155550142'],
      });
      expect(attach.json).toEqual({ status: 'ok' });

      const update = await http(server.url, 'PUT', `/v2/assistants/${id}`, key, {
        agent: { language: 'de-DE' },
      });
      expect(update.status).toBe(200);
      const read = await http(server.url, 'GET', `/v2/assistants/${id}?include_actions=true`, key);
      const agent = read.json.response.assistants[0];
      expect(agent.agent).toMatchObject({
        prompt: 'Sell solar to {name}.',
        language: 'de-DE',
        voice_id: 'v1',
      });
      expect(agent.attached_phone_numbers).toEqual([
        { number: '+14155550142', slug: '14155550142', sid: num.json.response.sid },
      ]);
      expect(read.headers.get('x-request-id')).toBeTruthy();

      const detach = await http(server.url, 'DELETE', `/v2/assistants/${id}/phone_numbers/14155550142`, key);
      expect(detach.status).toBe(200);
      const del = await http(server.url, 'DELETE', `/v2/assistants/${id}`, key);
      expect(del.json).toEqual({ status: 'ok', response: { answer: 'Agent deleted' } });
      const gone = await http(server.url, 'GET', `/v2/assistants/${id}`, key);
      expect(gone.status).toBe(400);
      expect(gone.json.detail.category).toBe('not_found');
    });

    it('chats with the builtin model over HTTP, also without a key (public widget)', async () => {
      const created = await http(server.url, 'POST', '/v2/assistants', key, {
        type: 'chat',
        name: 'Widget',
        agent: {
          prompt: 'You are Mia from Bright Smile Dental. You answer questions and book appointments.',
          greeting_message: 'Hi, this is Mia from Bright Smile Dental!',
          end_call_reasons_v2: [],
        },
      });
      const modelId = created.json.response.model_id as string;
      const chatId = crypto.randomUUID();
      const opened = await http(server.url, 'POST', `/v2/chat/${chatId}`, undefined, { model_id: modelId });
      expect(opened.status).toBe(200);
      expect(opened.json.response.initial_message.agent_message).toBe(
        'Hi, this is Mia from Bright Smile Dental!',
      );
      const reply = await http(server.url, 'POST', `/v2/chat/${chatId}/messages`, undefined, {
        message: 'Can I book an appointment?',
      });
      expect(reply.status).toBe(200);
      expect(reply.json.response.agent_message.length).toBeGreaterThan(0);
      expect(reply.json.response.current_state).toBe('ongoing');
      const bye = await http(server.url, 'POST', `/v2/chat/${chatId}/messages`, undefined, {
        message: 'Thanks, bye!',
      });
      expect(bye.json.response.current_state).toBe('completed');
      const read = await http(server.url, 'GET', `/v2/chat/${chatId}`, key);
      expect(read.json.response.chat_status).toBe('completed');
      expect(read.json.response.transcript.split('\n')[0]).toBe(
        'Agent: Hi, this is Mia from Bright Smile Dental!',
      );
      expect((await http(server.url, 'GET', `/v2/chat/${chatId}`)).status).toBe(401);
    });

    // The voice path does not depend on the store; one deployment is enough for this real-time call.
    if (name === 'sqlite')
      it('places a sim call in which both sides speak and hear (offline speech), recorded', async () => {
        expect(server.lines.some((l) => l.includes('"sim_calls":"audio"'))).toBe(true);
        await http(server.url, 'POST', '/v2/custom-numbers', key, {
          phone_number: '+14155550150',
          provider: 'sim',
        });
        const created = await http(server.url, 'POST', '/v2/assistants', key, {
          type: 'outbound',
          name: 'Voice',
          phone_number: '+14155550150',
          is_recording: true,
          agent: {
            prompt: 'You sell solar panels. Ask if they own their home.',
            greeting_message_mode: 'human',
          },
        });
        const placed = await http(server.url, 'POST', '/v2/calls', key, {
          model_id: created.json.response.model_id,
          phone: '+14155551234',
          name: 'Ann',
        });
        expect(placed.status).toBe(200);
        const id = placed.json.response.call_id as string;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the record's JSON
        let call: any = {};
        await expect
          .poll(
            async () => {
              call = (await http(server.url, 'GET', `/v2/calls/${id}`, key)).json.response.calls[0];
              return call.status === 'completed' && call.analysis !== null;
            },
            { timeout: 100_000, interval: 1000 },
          )
          .toBe(true);
        const lines = (call.transcript as string).split('\n');
        expect(lines.filter((l) => l.startsWith('human: ')).length).toBeGreaterThanOrEqual(1);
        expect(lines.filter((l) => l.startsWith('bot: ')).length).toBeGreaterThanOrEqual(1);
        expect(call.quality.mode).toBe('voice');
        expect(call.quality.latency_ms.p50).toBeGreaterThan(0);
        const wav = await fetch(call.recording_url, { headers: { authorization: `Bearer ${key}` } });
        expect(wav.status).toBe(200);
        expect(wav.headers.get('content-type')).toBe('audio/wav');
        expect(Buffer.from(await wav.arrayBuffer()).toString('ascii', 0, 4)).toBe('RIFF');
      }, 120_000);

    it('creates workspaces from the CLI while the server runs', async () => {
      const out = await runCli(
        ['workspaces', 'create', '--name', 'Acme', '--plan', 'standard', '--max-concurrent-calls', '3'],
        dep.env,
      );
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      const created = JSON.parse(out.stdout) as { workspace_id: string; api_key: string };
      expect(created.api_key).toMatch(/^pk_[\w-]{40,}$/);
      const ws = await http(server.url, 'GET', '/v2/workspace', created.api_key);
      expect(ws.status).toBe(200);
      expect(ws.json.response).toMatchObject({
        workspace_id: created.workspace_id,
        name: 'Acme',
        plan: 'standard',
        max_concurrent_calls: 3,
      });
      // The new workspace sees none of the default workspace's data.
      const agents = await http(server.url, 'GET', '/v2/assistants/', created.api_key);
      expect(agents.json.response.pagination.total_records).toBe(0);

      const keyOut = await runCli(['keys', 'create', '--workspace', created.workspace_id], dep.env);
      expect(keyOut.code).toBe(0);
      const second = JSON.parse(keyOut.stdout) as { api_key: string };
      expect(
        (await http(server.url, 'GET', '/v2/workspace', second.api_key)).json.response.workspace_id,
      ).toBe(created.workspace_id);
    });

    it('refuses bad CLI usage with exit code 2 and a message', async () => {
      const noName = await runCli(['workspaces', 'create'], dep.env);
      expect(noName.code).toBe(2);
      expect(noName.stderr).toContain('--name');
      const badPlan = await runCli(['workspaces', 'create', '--name', 'x', '--plan', 'gold'], dep.env);
      expect(badPlan.code).toBe(2);
      expect(badPlan.stderr).toContain('--plan');
      const badMax = await runCli(
        ['workspaces', 'create', '--name', 'x', '--max-concurrent-calls', '0'],
        dep.env,
      );
      expect(badMax.code).toBe(2);
      const unknown = await runCli(['frobnicate'], dep.env);
      expect(unknown.code).toBe(2);
    });

    it('migrates idempotently from the CLI', async () => {
      const out = await runCli(['migrate'], dep.env);
      expect(out.code).toBe(0);
      expect(JSON.parse(out.stdout)).toEqual({ store: dep.name, applied: [] });
    });

    it('shuts down cleanly on SIGTERM and keeps its key across restarts', async () => {
      const code = await server.stop('SIGTERM');
      expect(code).toBe(0);
      expect(server.lines.some((l) => l.includes('"stopped"'))).toBe(true);

      const fileBefore = readFileSync(join(dep.dataDir, 'bootstrap-api-key'), 'utf8');
      server = await startServer(dep.env);
      expect(server.lines.some((l) => keyLine.test(l))).toBe(false);
      expect(readFileSync(join(dep.dataDir, 'bootstrap-api-key'), 'utf8')).toBe(fileBefore);
      expect((await http(server.url, 'GET', '/v2/assistants/', key)).status).toBe(200);
      expect(await server.stop('SIGINT')).toBe(0);
    }, 60_000);
  });
}

describe('bootstrap key rules', () => {
  it('creates the default workspace with PARLEY_BOOTSTRAP_API_KEY, prints and writes nothing', async () => {
    const dep = await sqliteDeployment();
    const bootstrapKey = 'my-bootstrap-key-0123456789';
    const server = await startServer({ ...dep.env, PARLEY_BOOTSTRAP_API_KEY: bootstrapKey });
    try {
      expect(server.lines.some((l) => keyLine.test(l))).toBe(false);
      expect(existsSync(join(dep.dataDir, 'bootstrap-api-key'))).toBe(false);
      const ws = await http(server.url, 'GET', '/v2/workspace', bootstrapKey);
      expect(ws.json.response).toMatchObject({ name: 'default', plan: 'enterprise' });
    } finally {
      await server.stop();
      await dep.cleanup();
    }
  }, 60_000);

  it('adds a bootstrap key no workspace has even when other keys exist, once', async () => {
    const dep = await sqliteDeployment();
    try {
      const cli = await runCli(['workspaces', 'create', '--name', 'first'], dep.env);
      expect(cli.code).toBe(0);
      const bootstrapKey = 'second-bootstrap-key-abcdef';
      for (let i = 0; i < 2; i++) {
        const server = await startServer({ ...dep.env, PARLEY_BOOTSTRAP_API_KEY: bootstrapKey });
        expect(server.lines.some((l) => keyLine.test(l))).toBe(false);
        expect((await http(server.url, 'GET', '/v2/workspace', bootstrapKey)).status).toBe(200);
        await server.stop();
      }
      const list = await runCli(['workspaces', 'list'], dep.env);
      const names = (JSON.parse(list.stdout) as { name: string }[]).map((w) => w.name);
      expect(names).toEqual(['first', 'default']);
    } finally {
      await dep.cleanup();
    }
  }, 60_000);

  it('generates no key when keys already exist', async () => {
    const dep = await sqliteDeployment();
    try {
      expect((await runCli(['workspaces', 'create', '--name', 'only'], dep.env)).code).toBe(0);
      const server = await startServer(dep.env);
      expect(server.lines.some((l) => keyLine.test(l))).toBe(false);
      expect(existsSync(join(dep.dataDir, 'bootstrap-api-key'))).toBe(false);
      await server.stop();
    } finally {
      await dep.cleanup();
    }
  }, 60_000);

  it('refuses to start with a bootstrap key that is too short', async () => {
    const dep = await sqliteDeployment();
    try {
      const out = await runCli(['serve'], { ...dep.env, PARLEY_BOOTSTRAP_API_KEY: 'short' });
      expect(out.code).toBe(1);
      expect(out.stderr).toContain('PARLEY_BOOTSTRAP_API_KEY');
    } finally {
      await dep.cleanup();
    }
  });
});
