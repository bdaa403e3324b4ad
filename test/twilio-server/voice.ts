import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { Resampler, SESSION_RATE, mulawDecode, mulawEncode, type AudioFrame } from '../../src/media/index.ts';
import type { CalleeFactory, FarEndVoice } from '../../src/telephony/index.ts';

// The voice half of the fake Twilio: the Calls API (create, update), the status callbacks Twilio
// posts, the Voice URL request of an incoming call, and the far end of a bidirectional Media
// Stream (<Connect><Stream>) exactly as Twilio documents its messages. Every request it makes
// to Parley is signed with `sign` (the fake's own signature code, not Parley's). The far end
// plays its buffer in real time (a 20 ms timer, as Twilio's media server does): marks are echoed
// when the audio before them has played, `clear` drops the buffer and echoes the pending marks.
// Outcomes follow the dialed number's last four digits, like the sim's: 0000 no-answer, 1111
// busy, 2222 failed, 3333 a machine (AnsweredBy machine_end_beep with machine detection), 4444
// answers and hangs up at once; any other number answers with the callee.

export type Sign = (url: string, form: Record<string, string>) => string;

export interface FakeVoiceOptions {
  accountSid: string;
  sign: Sign;
  /** The far end of answered calls; without one an answered call stays silent. */
  callee?: CalleeFactory;
  voice?: FarEndVoice;
  /** Multiplies every <Pause> (0 in tests: the redirect comes at once). */
  pauseScale?: number;
}

/** A stream message the fake received from Parley. */
export type StreamMessage = { event: string; [key: string]: unknown };

export interface FakeCall {
  sid: string;
  direction: 'outbound-api' | 'inbound';
  from: string;
  to: string;
  /** The create request's form (outbound) or the Voice URL's form (inbound). */
  form: Record<string, string>;
  status: string;
  /** Forms of every update request (Status=, Twiml=). */
  updates: Record<string, string>[];
  /** TwiML answers of the Voice URL (inbound), in order. */
  twiml: string[];
  /** Everything Parley sent on the stream, media excepted (counted in mediaIn). */
  streamMessages: StreamMessage[];
  mediaIn: number;
  /** Marks echoed back, in order. */
  marksEchoed: string[];
  /** How the stream's socket was closed by Parley (code), when it was. */
  streamClosedBy: number | null;
  /** Resolves when the call ends at the fake (any final status). */
  ended: Promise<string>;
  /** Sends a key press on the stream. */
  pressKey(digit: string): void;
  /** Hangs up from the far end (stop, close, completed). */
  hangUp(): void;
}

interface Playback {
  items: ({ kind: 'audio'; samples: Int16Array } | { kind: 'mark'; name: string })[];
}

/** What the 3333 machine says: too short and too plain for Parley's own detection to call it one. */
export const MACHINE_GREETING = 'Hi, this is Bo.';

/** Frames the far end's player buffers before it plays after running dry. */
const JITTER_FRAMES = 3;

const FINAL = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

const decodeXml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The <Stream> of a <Connect>: its url and parameters; null when the TwiML has none. */
export function parseConnectStream(
  twiml: string,
): { url: string; parameters: Record<string, string> } | null {
  const stream = /<Connect>\s*<Stream\s+url="([^"]*)"\s*>([\s\S]*?)<\/Stream>\s*<\/Connect>/.exec(twiml);
  if (!stream) return null;
  const parameters: Record<string, string> = {};
  for (const match of (stream[2] ?? '').matchAll(/<Parameter\s+name="([^"]*)"\s+value="([^"]*)"\s*\/>/g))
    parameters[decodeXml(match[1] ?? '')] = decodeXml(match[2] ?? '');
  return { url: decodeXml(stream[1] ?? ''), parameters };
}

export function createFakeVoice(options: FakeVoiceOptions) {
  const { accountSid, sign } = options;
  const calls = new Map<string, FakeCall & { internal: Internal }>();
  const sockets = new Set<WebSocket>();
  const timers = new Set<NodeJS.Timeout>();

  interface Internal {
    callback: string | null;
    events: Set<string>;
    sequence: number;
    ws: WebSocket | null;
    streamSid: string;
    finish: (status: string) => void;
    stopped: boolean;
  }

  async function post(url: string, form: Record<string, string>): Promise<{ status: number; text: string }> {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': sign(url, form),
      },
      body: new URLSearchParams(form).toString(),
    });
    return { status: response.status, text: await response.text() };
  }

  function newCall(
    direction: FakeCall['direction'],
    from: string,
    to: string,
    form: Record<string, string>,
    callback: string | null,
    events: Set<string>,
  ) {
    const sid = `CA${randomBytes(16).toString('hex')}`;
    let finish: (status: string) => void = () => {};
    const ended = new Promise<string>((resolve) => (finish = resolve));
    const call: FakeCall & { internal: Internal } = {
      sid,
      direction,
      from,
      to,
      form,
      status: 'queued',
      updates: [],
      twiml: [],
      streamMessages: [],
      mediaIn: 0,
      marksEchoed: [],
      streamClosedBy: null,
      ended,
      pressKey(digit) {
        const ws = call.internal.ws;
        ws?.send(
          JSON.stringify({
            event: 'dtmf',
            streamSid: call.internal.streamSid,
            sequenceNumber: String(++call.internal.sequence),
            dtmf: { track: 'inbound_track', digit },
          }),
        );
      },
      hangUp() {
        void stopCall(call, 'completed');
      },
      internal: { callback, events, sequence: 0, ws: null, streamSid: '', finish, stopped: false },
    };
    calls.set(sid, call);
    return call;
  }

  /** Posts the status callback for `status` when the call asked for that event. */
  async function setStatus(
    call: FakeCall & { internal: Internal },
    status: string,
    extra: Record<string, string> = {},
  ) {
    if (FINAL.has(call.status)) return;
    call.status = status;
    if (FINAL.has(status)) call.internal.finish(status);
    const event = status === 'in-progress' ? 'answered' : FINAL.has(status) ? 'completed' : status;
    const { callback, events } = call.internal;
    if (!callback || !events.has(event)) return;
    await post(callback, {
      AccountSid: accountSid,
      ApiVersion: '2010-04-01',
      CallSid: call.sid,
      CallStatus: status,
      CallbackSource: 'call-progress-events',
      Called: call.to,
      Caller: call.from,
      Direction: call.direction,
      From: call.from,
      SequenceNumber: String(call.internal.sequence++),
      Timestamp: new Date().toUTCString(),
      To: call.to,
      ...extra,
    }).catch(() => undefined);
  }

  async function stopCall(call: FakeCall & { internal: Internal }, status: string | null) {
    const { ws } = call.internal;
    if (ws && !call.internal.stopped) {
      call.internal.stopped = true;
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(
          JSON.stringify({
            event: 'stop',
            sequenceNumber: String(++call.internal.sequence),
            streamSid: call.internal.streamSid,
            stop: { accountSid, callSid: call.sid },
          }),
        );
        ws.close(1000);
      }
    }
    if (status) await setStatus(call, status, status === 'completed' ? { CallDuration: '1' } : {});
  }

  /** Connects the call's stream to `url` and runs the far end on it. */
  function connectStream(
    call: FakeCall & { internal: Internal },
    url: string,
    parameters: Record<string, string>,
  ) {
    const ws = new WebSocket(url);
    sockets.add(ws);
    call.internal.ws = ws;
    const streamSid = `MZ${randomBytes(16).toString('hex')}`;
    call.internal.streamSid = streamSid;
    const playback: Playback = { items: [] };
    const outgoing: Int16Array[] = [];
    const abort = new AbortController();
    const up = new Resampler(8000, SESSION_RATE);
    const down = new Resampler(SESSION_RATE, 8000);
    let ear: { push(frame: AudioFrame): void } | null = null;
    /** Far-end lines queued to say, then whether to hang up after them. */
    let hangUpAfterSpeech = false;
    let chain = Promise.resolve();

    const say = (text: string) =>
      (chain = chain.then(async () => {
        if (!options.voice || text === '') return;
        for await (const frame of options.voice.speak(text, abort.signal)) {
          const out = new Int16Array(down.maxOutput(frame.samples.length));
          const n = down.process(frame.samples, out);
          outgoing.push(out.subarray(0, n));
        }
      }));

    const echo = (name: string) => {
      call.marksEchoed.push(name);
      ws.send(
        JSON.stringify({
          event: 'mark',
          sequenceNumber: String(++call.internal.sequence),
          streamSid,
          mark: { name },
        }),
      );
    };

    let chunk = 0;
    let buffering = true;
    const tick = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return;
      // What Parley sent plays: one frame a beat; marks go back once the audio before them played.
      // Like Twilio's, the player holds back a few frames after running dry (a jitter buffer), so
      // frames sent a little late do not get silence slipped between them.
      if (playback.items.length === 0) buffering = true;
      else if (playback.items.length >= JITTER_FRAMES || playback.items.some((i) => i.kind === 'mark'))
        buffering = false;
      while (!buffering && playback.items[0]?.kind === 'mark') {
        const item = playback.items.shift();
        if (item?.kind === 'mark') echo(item.name);
      }
      const item = buffering ? undefined : playback.items.shift();
      if (item?.kind === 'audio' && ear) {
        const out = new Int16Array(up.maxOutput(item.samples.length));
        const n = up.process(item.samples, out);
        ear.push({ samples: out.subarray(0, n), sampleRate: SESSION_RATE, at: Date.now() });
      } else if (!item && ear) {
        ear.push({ samples: new Int16Array(320), sampleRate: SESSION_RATE, at: Date.now() });
      }
      // The caller's audio, continuously (silence between words), as Twilio sends it.
      const said = outgoing.shift() ?? new Int16Array(160);
      chunk += 1;
      ws.send(
        JSON.stringify({
          event: 'media',
          sequenceNumber: String(++call.internal.sequence),
          streamSid,
          media: {
            track: 'inbound',
            chunk: String(chunk),
            timestamp: String(chunk * 20),
            payload: Buffer.from(mulawEncode(said)).toString('base64'),
          },
        }),
      );
      if (hangUpAfterSpeech && outgoing.length === 0) {
        hangUpAfterSpeech = false;
        void chain.then(() => stopCall(call, 'completed'));
      }
    }, 20);
    timers.add(tick);

    ws.on('open', () => {
      ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      ws.send(
        JSON.stringify({
          event: 'start',
          sequenceNumber: String(++call.internal.sequence),
          streamSid,
          start: {
            accountSid,
            streamSid,
            callSid: call.sid,
            tracks: ['inbound'],
            customParameters: parameters,
            mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
          },
        }),
      );
      if (call.to.endsWith('4444')) {
        void stopCall(call, 'completed');
        return;
      }
      if (call.to.endsWith('3333')) {
        // A machine: a short, plain greeting (nothing a person would not say), then it records.
        void say(MACHINE_GREETING);
        return;
      }
      if (!options.callee || !options.voice) return;
      const voice = options.voice;
      void Promise.resolve(
        options.callee({ callId: parameters.parleyCallId ?? '', to: call.to, from: call.from }),
      ).then(async (callee) => {
        ear = voice.listen((heard) => {
          void callee.reply(heard, abort.signal).then((turn) => {
            void say(turn.text);
            if (turn.hangUp) void chain.then(() => (hangUpAfterSpeech = true));
          });
        }, abort.signal);
        void say(await callee.opening());
      });
    });
    ws.on('message', (data) => {
      let message: StreamMessage;
      try {
        message = JSON.parse(String(data)) as StreamMessage;
      } catch {
        return;
      }
      if (message.event === 'media') {
        call.mediaIn += 1;
        const payload = (message.media as { payload?: string } | undefined)?.payload ?? '';
        playback.items.push({ kind: 'audio', samples: mulawDecode(Buffer.from(payload, 'base64')) });
        return;
      }
      call.streamMessages.push(message);
      if (message.event === 'mark') {
        const name = (message.mark as { name?: string } | undefined)?.name ?? '';
        playback.items.push({ kind: 'mark', name });
      } else if (message.event === 'clear') {
        // The buffer is dropped; its marks come back (Twilio's documented behaviour).
        const marks = playback.items.filter((item) => item.kind === 'mark');
        playback.items = [];
        for (const item of marks) if (item.kind === 'mark') echo(item.name);
      }
    });
    ws.on('close', (code) => {
      clearInterval(tick);
      timers.delete(tick);
      abort.abort();
      sockets.delete(ws);
      if (!call.internal.stopped) call.streamClosedBy = code;
      // <Connect><Stream> ends when the socket closes: the call ends, unless an update moved it on.
      if (!FINAL.has(call.status) && call.updates.every((u) => u.Twiml === undefined))
        void setStatus(call, 'completed', { CallDuration: '1' });
    });
    ws.on('error', () => undefined);
  }

  async function runOutbound(call: FakeCall & { internal: Internal }) {
    await setStatus(call, 'initiated');
    await setStatus(call, 'ringing');
    if (FINAL.has(call.status)) return;
    const suffix = call.to.slice(-4);
    if (suffix === '0000') return void (await setStatus(call, 'no-answer'));
    if (suffix === '1111') return void (await setStatus(call, 'busy'));
    if (suffix === '2222') return void (await setStatus(call, 'failed', { ErrorCode: '31005' }));
    await setStatus(call, 'in-progress');
    if (FINAL.has(call.status)) return;
    const stream = parseConnectStream(call.form.Twiml ?? '');
    if (stream) connectStream(call, stream.url, stream.parameters);
    if (call.form.MachineDetection && call.form.AsyncAmdStatusCallback) {
      await post(call.form.AsyncAmdStatusCallback, {
        AccountSid: accountSid,
        CallSid: call.sid,
        AnsweredBy: suffix === '3333' ? 'machine_end_beep' : 'human',
        MachineDetectionDuration: '1200',
      }).catch(() => undefined);
    }
  }

  return {
    calls,
    /** POST .../Calls.json: validated by the caller (auth, account); returns the JSON answer. */
    create(form: Record<string, string>, raw: URLSearchParams): { status: number; body: unknown } {
      const to = form.To ?? '';
      const from = form.From ?? '';
      if (!to)
        return { status: 400, body: { code: 21201, message: 'No called number is specified', status: 400 } };
      if (!from)
        return { status: 400, body: { code: 21213, message: 'No caller ID is specified', status: 400 } };
      if (!form.Twiml && !form.Url && !form.ApplicationSid)
        return {
          status: 400,
          body: { code: 21205, message: 'Url, Twiml or ApplicationSid is required', status: 400 },
        };
      const events = new Set(raw.getAll('StatusCallbackEvent').flatMap((e) => e.split(' ')));
      const call = newCall('outbound-api', from, to, form, form.StatusCallback ?? null, events);
      setImmediate(() => void runOutbound(call));
      return {
        status: 201,
        body: {
          sid: call.sid,
          account_sid: accountSid,
          to,
          from,
          status: 'queued',
          direction: 'outbound-api',
          api_version: '2010-04-01',
          uri: `/2010-04-01/Accounts/${accountSid}/Calls/${call.sid}.json`,
        },
      };
    },
    /** POST .../Calls/{sid}.json. */
    update(sid: string, form: Record<string, string>): { status: number; body: unknown } {
      const call = calls.get(sid);
      if (!call) return { status: 404, body: { code: 20404, message: `Call ${sid} not found`, status: 404 } };
      call.updates.push(form);
      if (form.Twiml !== undefined) {
        // The TwiML replaces what runs: the stream ends (Parley sees `stop`), the call goes on.
        void stopCall(call, null);
      } else if (form.Status === 'completed' || form.Status === 'canceled') {
        void stopCall(call, FINAL.has(call.status) ? call.status : form.Status);
      }
      return { status: 200, body: { sid, status: call.status } };
    },
    /**
     * An incoming call to `to`: asks the Voice URL (and each <Redirect>) and follows the TwiML:
     * <Connect><Stream> runs the far end, <Reject> and <Hangup> end the call.
     */
    async incoming(input: {
      voiceUrl: string;
      from: string;
      to: string;
      statusCallback?: string;
    }): Promise<FakeCall> {
      const call = newCall(
        'inbound',
        input.from,
        input.to,
        {},
        input.statusCallback ?? null,
        new Set(['completed', 'answered']),
      );
      call.status = 'ringing';
      let url = input.voiceUrl;
      for (let hop = 0; hop < 20; hop += 1) {
        const form = {
          AccountSid: accountSid,
          ApiVersion: '2010-04-01',
          CallSid: call.sid,
          CallStatus: call.status,
          Called: input.to,
          Caller: input.from,
          Direction: 'inbound',
          From: input.from,
          To: input.to,
        };
        call.form = form;
        const answer = await post(url, form);
        call.twiml.push(answer.text);
        if (answer.status !== 200) {
          await setStatus(call, 'failed');
          return call;
        }
        const stream = parseConnectStream(answer.text);
        if (stream) {
          await setStatus(call, 'in-progress');
          connectStream(call, stream.url, stream.parameters);
          return call;
        }
        if (/<Reject/.test(answer.text)) {
          await setStatus(call, /reason="busy"/.test(answer.text) ? 'busy' : 'no-answer');
          return call;
        }
        const pause = /<Pause length="(\d+)"\/>/.exec(answer.text);
        const redirect = /<Redirect[^>]*>([^<]*)<\/Redirect>/.exec(answer.text);
        if (pause || redirect) call.status = 'in-progress'; // a Pause answers the call
        if (pause)
          await new Promise((r) => setTimeout(r, Number(pause[1]) * 1000 * (options.pauseScale ?? 1)));
        if (!redirect) {
          await setStatus(call, 'completed');
          return call;
        }
        url = decodeXml(redirect[1] ?? '');
      }
      await setStatus(call, 'failed');
      return call;
    },
    close() {
      for (const timer of timers) clearInterval(timer);
      for (const ws of sockets) ws.terminate();
    },
  };
}

export type FakeVoice = ReturnType<typeof createFakeVoice>;
