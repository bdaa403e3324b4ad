import { ParleyError } from '../../core/index.ts';

// The text-messaging seam: SMS and WhatsApp out, replies in. Adapters: `sim` (records messages;
// replies are played by a user or a test) and `twilio` (Twilio's Messages REST API and its
// inbound webhook). Each passes the same contract suite.

export type MessagingChannel = 'sms' | 'whatsapp';

export interface OutboundMessage {
  channel: MessagingChannel;
  /** E.164 numbers. */
  from: string;
  to: string;
  /** Free text; required unless a template is given. */
  body?: string;
  /** A pre-approved template (WhatsApp outside the 24-hour window). */
  template?: { contentSid: string; variables?: Record<string, string> };
}

export interface SentMessage {
  /** The provider's id for the message. */
  id: string;
  status: 'queued' | 'sent';
}

export interface InboundMessage {
  channel: MessagingChannel;
  from: string;
  to: string;
  body: string;
  providerMessageId: string;
}

export interface Messaging {
  readonly name: string;
  /** Sends one message; throws a `MessagingError` when the provider refuses or fails. */
  send(message: OutboundMessage, options?: { signal?: AbortSignal }): Promise<SentMessage>;
}

/** What an inbound-message webhook receives, as the HTTP layer hands it over. */
export interface InboundRequest {
  /** The full URL the provider called (signatures cover it). */
  url: string;
  headers: Record<string, string | undefined>;
  /** Form fields of an `application/x-www-form-urlencoded` body. */
  form: Record<string, string>;
}

/** Turns a provider's inbound webhook into a message, after verifying its signature. */
export interface InboundParser {
  parse(request: InboundRequest): InboundMessage;
}

/** A provider refused or failed to take a message; `retryable` says whether trying again can help. */
export class MessagingError extends ParleyError {
  override name = 'MessagingError';
  constructor(description: string, code: string, status: number, retryable: boolean, cause?: unknown) {
    super(description, {
      code,
      status,
      category: status < 500 ? 'validation' : 'critical',
      retryable,
      cause,
    });
  }
}
