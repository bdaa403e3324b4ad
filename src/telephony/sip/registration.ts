import { setTimeout as delay } from 'node:timers/promises';
import { SipHeaders } from './headers.ts';
import type { SipContext } from './context.ts';
import { authorize, parseChallenge } from './digest.ts';
import { USER_AGENT } from './dialog.ts';
import type { SipRequest, SipResponse } from './message.ts';
import { after } from './timers.ts';
import { newCallId, newTag } from './transactions.ts';
import { resolveHost, type SipRegistrationTarget, type SipTrunkSettings } from './trunks.ts';
import type { SipPeer } from './transport.ts';
import { parseNameAddr, parseSipUri } from './uri.ts';

// Registration with trunks that ask for it (`uac_enabled`, RFC 3261 section 10): REGISTER with
// digest answers, refreshed before it expires, retried with a growing back-off after a failure.
// The numbers to register are read from the directory now and then, so a number imported,
// changed or deleted is picked up without a restart. Each state change is saved for the number's
// read (`registered` with its expiry, `failed` with the reason).

export interface Registrations {
  start(): void;
  /** Reads the numbers to register now (also done every `pollMs`). */
  sync(): Promise<void>;
  stop(): Promise<void>;
  /** Number ids registered now (for tests and metrics). */
  readonly registered: ReadonlySet<string>;
}

export interface RegistrationOptions {
  enabled: boolean;
  /** How often the numbers to register are read again (default 30 s). */
  pollMs?: number;
  /** The first retry after a failure (default 30 s), doubled up to `maxRetryMs` (default 10 min). */
  retryMs?: number;
  maxRetryMs?: number;
}

/** How long stopping waits for registrars to confirm the bindings were removed. */
const STOP_GRACE_MS = 1_000;

interface Task {
  target: SipRegistrationTarget;
  key: string;
  callId: string;
  tag: string;
  seq: number;
  retryMs: number;
  stop: (() => void) | null;
  stopped: boolean;
}

/** What a registration depends on: a change re-registers from scratch. */
const keyOf = (t: SipRegistrationTarget) =>
  JSON.stringify([
    t.number,
    t.trunk.host,
    t.trunk.port,
    t.trunk.transport,
    t.trunk.username,
    t.trunk.password,
    t.trunk.authUsername,
    t.trunk.outboundProxy,
    t.trunk.registerExpires,
  ]);

async function registrarHop(trunk: SipTrunkSettings): Promise<SipPeer> {
  const transport = trunk.transport === 'tcp' ? 'tcp' : 'udp';
  const proxy = trunk.outboundProxy
    ? parseSipUri(/^sips?:/i.test(trunk.outboundProxy) ? trunk.outboundProxy : `sip:${trunk.outboundProxy}`)
    : null;
  if (proxy?.host) return { transport, address: await resolveHost(proxy.host), port: proxy.port ?? 5060 };
  return { transport, address: await resolveHost(trunk.host), port: trunk.port ?? 5060 };
}

/** The expiry the registrar granted our contact, seconds. */
function grantedSeconds(response: SipResponse, contactUser: string, asked: number): number {
  for (const contact of response.headers.getAll('contact')) {
    const parsed = parseNameAddr(contact);
    if (parsed?.uri.user === contactUser) {
      const value = Number.parseInt(parsed.params.get('expires') ?? '', 10);
      if (Number.isFinite(value)) return value;
    }
  }
  const header = Number.parseInt(response.headers.get('expires') ?? '', 10);
  return Number.isFinite(header) ? header : asked;
}

export function createRegistrations(ctx: SipContext, options: RegistrationOptions): Registrations {
  const pollMs = options.pollMs ?? 30_000;
  const firstRetry = options.retryMs ?? 30_000;
  const maxRetry = options.maxRetryMs ?? 600_000;
  const tasks = new Map<string, Task>();
  const registered = new Set<string>();
  let stopPoll: (() => void) | null = null;
  let running = false;

  const save = (task: Task, state: Parameters<SipContext['directory']['saveRegistration']>[1]) =>
    ctx.directory.saveRegistration(task.target.numberId, state).catch((err: unknown) => {
      ctx.logger?.warn({ err, number_id: task.target.numberId }, 'saving a SIP registration state failed');
    });

  function schedule(task: Task, ms: number) {
    task.stop?.();
    task.stop = after(ctx.clock, ms, () => void register(task));
  }

  function request(task: Task, hop: SipPeer, expires: number): SipRequest {
    const { trunk, number } = task.target;
    const user = trunk.username ?? number;
    const domain = trunk.port && trunk.port !== 5060 ? `${trunk.host}:${trunk.port}` : trunk.host;
    const transportParam = hop.transport === 'tcp' ? ';transport=tcp' : '';
    task.seq += 1;
    return {
      kind: 'request',
      method: 'REGISTER',
      uri: `sip:${domain}${transportParam}`,
      headers: new SipHeaders([
        ['max-forwards', '70'],
        ['from', `<sip:${user}@${domain}>;tag=${task.tag}`],
        ['to', `<sip:${user}@${domain}>`],
        ['call-id', task.callId],
        ['cseq', `${task.seq} REGISTER`],
        ['contact', `<sip:${user}@${ctx.contactHost}${transportParam}>`],
        ['expires', String(expires)],
        ['user-agent', USER_AGENT],
      ]),
      body: '',
    };
  }

  async function register(task: Task, expires = task.target.trunk.registerExpires ?? 300): Promise<void> {
    if (task.stopped) return;
    const { trunk } = task.target;
    const fail = async (error: string) => {
      if (task.stopped) return;
      registered.delete(task.target.numberId);
      const retryAt = ctx.clock.now() + task.retryMs;
      await save(task, { state: 'failed', error, retryAt });
      schedule(task, task.retryMs);
      task.retryMs = Math.min(task.retryMs * 2, maxRetry);
    };
    let hop: SipPeer;
    try {
      hop = await registrarHop(trunk);
    } catch {
      await fail('the registrar host could not be resolved');
      return;
    }
    let response = await ctx.endpoint.request(request(task, hop, expires), hop);
    for (let tries = 0; (response.status === 401 || response.status === 407) && tries < 2; tries += 1) {
      const header = response.headers.get(
        response.status === 401 ? 'www-authenticate' : 'proxy-authenticate',
      );
      const challenge = header ? parseChallenge(header) : null;
      if (!challenge || !trunk.password) break;
      const next = request(task, hop, expires);
      next.headers.append(
        response.status === 401 ? 'authorization' : 'proxy-authorization',
        authorize(
          challenge,
          { username: trunk.authUsername ?? trunk.username ?? task.target.number, password: trunk.password },
          'REGISTER',
          next.uri,
        ),
      );
      response = await ctx.endpoint.request(next, hop);
    }
    if (task.stopped) return;
    if (response.status === 423) {
      // Interval Too Brief: ask again with the registrar's minimum (RFC 3261 section 10.2.8).
      const min = Number.parseInt(response.headers.get('min-expires') ?? '', 10);
      if (Number.isFinite(min) && min > expires && min <= 86_400) {
        await register(task, min);
        return;
      }
    }
    if (response.status < 200 || response.status >= 300) {
      const why =
        response.status === 401 || response.status === 407
          ? `SIP ${response.status}: the registrar refused the credentials`
          : `SIP ${response.status} ${response.reason}`.trim();
      await fail(why);
      return;
    }
    if (expires === 0) return;
    const user = trunk.username ?? task.target.number;
    const granted = Math.max(1, grantedSeconds(response, user, expires));
    task.retryMs = firstRetry;
    registered.add(task.target.numberId);
    await save(task, { state: 'registered', expiresAt: ctx.clock.now() + granted * 1000 });
    // Refresh well before expiry: halfway, or 30 s before, whichever is later.
    schedule(task, Math.max(granted * 500, granted * 1000 - 30_000));
  }

  async function unregister(task: Task) {
    task.stopped = true;
    task.stop?.();
    if (!registered.delete(task.target.numberId)) return;
    try {
      const hop = await registrarHop(task.target.trunk);
      task.stopped = false;
      const response = await ctx.endpoint.request(request(task, hop, 0), hop);
      if (response.status === 401 || response.status === 407) {
        const header = response.headers.get(
          response.status === 401 ? 'www-authenticate' : 'proxy-authenticate',
        );
        const challenge = header ? parseChallenge(header) : null;
        if (challenge && task.target.trunk.password) {
          const next = request(task, hop, 0);
          next.headers.append(
            response.status === 401 ? 'authorization' : 'proxy-authorization',
            authorize(
              challenge,
              {
                username: task.target.trunk.authUsername ?? task.target.trunk.username ?? task.target.number,
                password: task.target.trunk.password,
              },
              'REGISTER',
              next.uri,
            ),
          );
          await ctx.endpoint.request(next, hop);
        }
      }
    } catch {
      // Best effort: the binding expires on its own.
    } finally {
      task.stopped = true;
    }
  }

  async function sync() {
    if (!options.enabled) return;
    const targets = await ctx.directory.registering();
    const wanted = new Map(targets.map((t) => [t.numberId, t]));
    for (const [id, task] of tasks) {
      const target = wanted.get(id);
      if (target && keyOf(target) === task.key) continue;
      tasks.delete(id);
      await unregister(task);
    }
    for (const [id, target] of wanted) {
      if (tasks.has(id)) continue;
      const task: Task = {
        target,
        key: keyOf(target),
        callId: newCallId(ctx.publicAddress),
        tag: newTag(),
        seq: 0,
        retryMs: firstRetry,
        stop: null,
        stopped: false,
      };
      tasks.set(id, task);
      await save(task, { state: 'registering' });
      void register(task);
    }
  }

  function poll() {
    if (!running) return;
    sync()
      .catch((err: unknown) => ctx.logger?.warn({ err }, 'reading the SIP numbers to register failed'))
      .finally(() => {
        if (running) stopPoll = after(ctx.clock, pollMs, poll);
      });
  }

  return {
    registered,
    start() {
      if (!options.enabled || running) return;
      running = true;
      poll();
    },
    sync,
    async stop() {
      running = false;
      stopPoll?.();
      // Bindings are removed where the registrar answers soon; the rest expire on their own.
      const removals = Promise.all([...tasks.values()].map((task) => unregister(task)));
      tasks.clear();
      await Promise.race([removals, delay(STOP_GRACE_MS, undefined, { ref: false })]);
    },
  };
}
