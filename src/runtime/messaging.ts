import type { MessagingPort } from '../actions/index.ts';
import { invalidInput, slugOf } from '../core/index.ts';
import type {
  InboundParser,
  Messaging,
  OutboundMessage,
  SentMessage,
  SimMessaging,
  SimSentMessage,
} from '../providers/index.ts';
import type { Repositories } from '../store/index.ts';

// Text messages out of a workspace: which adapter serves a number (its provider), and a record of
// which workspace sent what through the sim (the sim itself knows no workspaces). Chats over
// SMS/WhatsApp and messaging actions (in chats and calls) send through the same hub.

export interface MessagingDeps {
  /** Serves every number whose provider is not `twilio`. */
  sim: SimMessaging;
  /** Serves numbers with provider `twilio`; absent when Twilio is not configured. */
  twilio?: { messaging: Messaging; inbound: InboundParser };
}

export interface MessagingHub {
  readonly messaging: MessagingDeps;
  /** The adapter of a number's provider; a 400 naming `field` when it is not configured. */
  adapterFor(provider: string, field: string[]): Messaging;
  /** Sends one message for a workspace (the sim outbox remembers whose it is). */
  send(workspaceId: string, adapter: Messaging, message: OutboundMessage): Promise<SentMessage>;
  /** The workspace's messages in the sim outbox, newest first. */
  simOutbox(workspaceId: string): SimSentMessage[];
  /** Messaging actions' port: sends from one of the workspace's numbers through its provider. */
  portFor(workspaceId: string): MessagingPort;
}

export const adapterName = (provider: string | undefined) => (provider === 'twilio' ? 'twilio' : 'sim');

export function createMessagingHub(options: {
  repos: Pick<Repositories, 'phoneNumbers'>;
  messaging: MessagingDeps;
}): MessagingHub {
  const { repos, messaging } = options;
  const simOwners = new Map<string, string>();

  const hub: MessagingHub = {
    messaging,
    adapterFor(provider, field) {
      if (adapterName(provider) === 'sim') return messaging.sim;
      if (!messaging.twilio) {
        throw invalidInput(
          `${field.join('.')}: the number's provider is twilio, but Twilio messaging is not configured on this server (PARLEY_TWILIO_ACCOUNT_SID and PARLEY_TWILIO_AUTH_TOKEN)`,
          field,
        );
      }
      return messaging.twilio.messaging;
    },
    async send(workspaceId, adapter, message) {
      const sent = await adapter.send(message);
      if (adapter === messaging.sim) simOwners.set(sent.id, workspaceId);
      return sent;
    },
    simOutbox(workspaceId) {
      return messaging.sim
        .sent()
        .filter((m) => simOwners.get(m.id) === workspaceId)
        .reverse();
    },
    portFor(workspaceId) {
      return {
        async send(message) {
          const number = message.from
            ? await repos.phoneNumbers.getBySlug(workspaceId, slugOf(message.from))
            : null;
          if (!number)
            throw new Error('number_not_found: the sending number is not in the workspace inventory');
          return hub.send(workspaceId, hub.adapterFor(number.provider, ['from']), message);
        },
      };
    },
  };
  return hub;
}
