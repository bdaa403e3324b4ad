// The TwiML Parley answers Twilio with (https://www.twilio.com/docs/voice/twiml): a bidirectional
// `<Connect><Stream>` to Parley's own socket, a `<Reject>`, a `<Dial>` for a cold transfer, and the
// wait of a slow inbound routing (`<Pause>` then `<Redirect>` back to the voice URL).

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

export const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);

const response = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>`;

/** Connects the call's audio to `url` both ways; each parameter arrives in `start.customParameters`. */
export function connectStreamTwiml(url: string, parameters: Record<string, string>): string {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${escapeXml(name)}" value="${escapeXml(value)}"/>`)
    .join('');
  return response(`<Connect><Stream url="${escapeXml(url)}">${params}</Stream></Connect>`);
}

/** Turns a ringing call away without answering it (`busy` or `rejected`). */
export const rejectTwiml = (reason: 'busy' | 'rejected') => response(`<Reject reason="${reason}"/>`);

/** Ends a call that was already answered (a `<Pause>` answers it). */
export const hangupTwiml = () => response('<Hangup/>');

/** Waits `seconds`, then asks `url` again (POST) what to do. */
export const waitTwiml = (seconds: number, url: string) =>
  response(`<Pause length="${seconds}"/><Redirect method="POST">${escapeXml(url)}</Redirect>`);

/** Hands the call to `to` (the stream ends). */
export const dialTwiml = (to: string) => response(`<Dial>${escapeXml(to)}</Dial>`);
