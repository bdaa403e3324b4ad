// Twilio's Voice REST API, the two requests the carrier makes
// (https://www.twilio.com/docs/voice/api/call-resource): create a call
// (POST /2010-04-01/Accounts/{AccountSid}/Calls.json) and update one
// (POST .../Calls/{CallSid}.json: Status=completed|canceled to end it, Twiml= to transfer it).
// Form-encoded, HTTP Basic auth with the account SID and its auth token.

export interface TwilioAccount {
  accountSid: string;
  authToken: string;
}

/** One request's failure: Twilio's HTTP status and error code when it answered, 0 when it did not. */
export class TwilioRestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: number | null,
  ) {
    super(message);
    this.name = 'TwilioRestError';
  }
}

export interface TwilioRestOptions {
  /** Default https://api.twilio.com. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** How long one request may take; default 15 s. */
  timeoutMs?: number;
}

export interface TwilioRest {
  /** Creates a call; resolves to its CallSid. Repeated parameters take an array. */
  createCall(account: TwilioAccount, params: Record<string, string | string[]>): Promise<string>;
  updateCall(account: TwilioAccount, callSid: string, params: Record<string, string>): Promise<void>;
}

const DEFAULT_BASE_URL = 'https://api.twilio.com';
const CALL_SID = /^CA[0-9a-f]{32}$/i;

export function createTwilioRest(options: TwilioRestOptions = {}): TwilioRest {
  const base = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;

  async function post(account: TwilioAccount, path: string, params: Record<string, string | string[]>) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(params))
      for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
    const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(account.accountSid)}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body: form.toString(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      throw new TwilioRestError(
        `could not reach Twilio: ${err instanceof Error ? err.message : String(err)}`,
        0,
        null,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    if (!response.ok) {
      const message =
        typeof fields.message === 'string' ? fields.message : `Twilio answered HTTP ${response.status}`;
      throw new TwilioRestError(
        message,
        response.status,
        typeof fields.code === 'number' ? fields.code : null,
      );
    }
    return fields;
  }

  return {
    async createCall(account, params) {
      const body = await post(account, '/Calls.json', params);
      const sid = body.sid;
      if (typeof sid !== 'string' || !CALL_SID.test(sid))
        throw new TwilioRestError('Twilio answered without a call sid', 502, null);
      return sid;
    },
    async updateCall(account, callSid, params) {
      if (!CALL_SID.test(callSid)) throw new TwilioRestError(`not a call sid: ${callSid}`, 400, null);
      await post(account, `/Calls/${callSid}.json`, params);
    },
  };
}
