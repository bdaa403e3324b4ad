import type { MessagingChannel, ReplyPort, ReplyQuery } from '../actions/index.ts';

// Replies to in-call messages (INCALL_SMS / INCALL_WHATSAPP with `wait_for_reply`). The inbound
// messaging routes offer every inbound message to the hub first; a message that a waiting
// action takes is its reply and goes no further (it does not start or continue a chat). The hub
// is in-process: a reply that reaches another API process than the one running the conversation
// is not seen (docs/api-notes.md, "Messaging actions").

export interface InboundText {
  channel: MessagingChannel;
  /** The lead's number. */
  from: string;
  /** Our number. */
  to: string;
  body: string;
  receivedAt: number;
}

interface Waiter {
  query: ReplyQuery;
  resolve: (reply: { body: string }) => void;
}

export interface ReplyHub extends ReplyPort {
  /** True when a waiting action took the message as its reply. */
  offer(message: InboundText): boolean;
  /** Actions waiting now. */
  readonly waiting: number;
}

export function createReplyHub(): ReplyHub {
  const waiters = new Set<Waiter>();
  return {
    waitForReply(query, signal) {
      return new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const waiter: Waiter = {
          query,
          resolve: (reply) => {
            signal.removeEventListener('abort', onAbort);
            resolve(reply);
          },
        };
        const onAbort = () => {
          waiters.delete(waiter);
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiters.add(waiter);
      });
    },
    offer(message) {
      for (const w of waiters) {
        const q = w.query;
        if (q.channel !== message.channel || q.from !== message.from || q.to !== message.to) continue;
        if (message.receivedAt < q.sinceMs) continue;
        waiters.delete(w);
        w.resolve({ body: message.body });
        return true;
      }
      return false;
    },
    get waiting() {
      return waiters.size;
    },
  };
}
