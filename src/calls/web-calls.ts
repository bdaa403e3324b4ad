import { newId, type Clock } from '../core/index.ts';
import type { Call, Store, Workspace } from '../store/index.ts';
import { WS_SESSION_TTL_MS, type WsCodec, type WsFraming, type WsMediaCarrier } from '../telephony/index.ts';
import type { PlaceCallInput } from './admission.ts';
import { NODE_DEAD_AFTER_MS } from './liveness.ts';

// WebSocket media test calls across nodes (docs/ws-media.md, "Several nodes"): a call runs on the
// node its client binds to. A start naming this node (or none, on a node that runs calls) opens
// the session here; one naming another live node hands the session over through the store, pins
// the call to that node and wakes it. An unknown, silent or WS-less node cannot take the call.

export interface WebCallStart {
  placement: Omit<PlaceCallInput, 'id' | 'type' | 'node' | 'provider'>;
  codec: WsCodec;
  framing: WsFraming;
  /** The node named by `wsMediaServerName`; empty: this node, or any that runs WS calls. */
  serverName: string;
}

export type WebCallStarted =
  | { kind: 'started'; call: Call; sid: string; node: string; publicUrl: string }
  | { kind: 'no-node'; error: string };

export interface WebCalls {
  /** This node's name (PARLEY_NODE_NAME). */
  readonly node: string;
  /** The public URL of a node that takes WS media calls: this one if it does; null: none now. */
  baseUrl(): Promise<string | null>;
  start(workspace: Workspace, request: WebCallStart): Promise<WebCallStarted>;
}

export interface WebCallsOptions {
  store: Store;
  place(workspace: Workspace, input: PlaceCallInput): Promise<{ call: Call }>;
  /** This node's carrier, when this node runs WS media calls. */
  carrier: WsMediaCarrier | null;
  node: string;
  publicUrl: string;
  clock: Clock;
  /** Tells the other nodes a call waits for them (NOTIFY). */
  wakeOthers(): void;
  deadAfterMs?: number;
}

export function createWebCalls(options: WebCallsOptions): WebCalls {
  const { store, carrier, node, publicUrl, clock } = options;
  const deadAfterMs = options.deadAfterMs ?? NODE_DEAD_AFTER_MS;
  const liveSince = () => clock.now() - deadAfterMs;

  /** The node that takes the call, with where its clients connect, or why none does. */
  async function choose(serverName: string): Promise<{ name: string; publicUrl: string } | string> {
    if (serverName === node || (serverName === '' && carrier)) {
      return carrier ? { name: node, publicUrl } : `node "${node}" does not run calls`;
    }
    const found =
      serverName === '' ? await store.nodes.freshestWsMedia(liveSince()) : await store.nodes.get(serverName);
    if (!found)
      return serverName === ''
        ? 'no node takes WebSocket media calls now'
        : `no node is named "${serverName}"`;
    if (found.lastSeenAt < liveSince()) return `node "${found.name}" is not running`;
    if (!found.wsMedia) return `node "${found.name}" does not take WebSocket media calls`;
    return { name: found.name, publicUrl: found.publicUrl };
  }

  return {
    node,

    async baseUrl() {
      if (carrier) return publicUrl;
      return (await store.nodes.freshestWsMedia(liveSince()))?.publicUrl ?? null;
    },

    async start(workspace, request) {
      const target = await choose(request.serverName);
      if (typeof target === 'string') return { kind: 'no-node', error: `wsMediaServerName: ${target}` };
      const callId = newId();
      const init = { callId, codec: request.codec, framing: request.framing };
      let sid: string;
      if (target.name === node && carrier) {
        sid = carrier.open(init).sid;
      } else {
        sid = newId();
        await store.wsMediaSessions.create({
          ...init,
          sid,
          node: target.name,
          expiresAt: clock.now() + WS_SESSION_TTL_MS,
        });
      }
      const { call } = await options.place(workspace, {
        ...request.placement,
        id: callId,
        type: 'web',
        provider: 'ws',
        node: target.name,
      });
      if (target.name !== node) options.wakeOthers();
      return { kind: 'started', call, sid, node: target.name, publicUrl: target.publicUrl };
    },
  };
}
