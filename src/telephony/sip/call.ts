import type { Clock, Logger } from '../../core/index.ts';
import { TransferRefusedError, type MediaReceiver } from '../../media/index.ts';
import type { CallLeg, LegEndReason } from '../types.ts';
import { ALLOW, dialogRequest, type Dialog } from './dialog.ts';
import type { SipMediaEndpoint } from './media-port.ts';
import { parseCSeq, type SipRequest } from './message.ts';
import { answerOffer, createOffer, readAnswer, type LocalMedia, type NegotiatedMedia } from './sdp.ts';
import { after } from './timers.ts';
import type { ServerTransaction, SipEndpoint } from './transactions.ts';

// A connected SIP call: its dialog, its RTP endpoint, and the leg the voice session talks on. It
// answers what the far end sends inside the dialog (BYE, re-INVITE and UPDATE for hold and session
// refresh, OPTIONS, INFO keys, NOTIFY of a transfer) and sends ours (BYE, REFER, refreshes).

/**
 * How long the media keeps playing what came before the far end's BYE: more than the jitter
 * buffer holds (60 ms at its target, more after a burst).
 */
export const BYE_LINGER_MS = 200;
/** How long after the call ends its RTP socket closes, so what was sent last leaves. */
const MEDIA_CLOSE_DELAY_MS = 60;

export interface SipCallOptions {
  dialog: Dialog;
  media: SipMediaEndpoint;
  local: LocalMedia;
  negotiated: NegotiatedMedia;
  endpoint: SipEndpoint;
  clock: Clock;
  logger?: Logger | undefined;
  /** Session-Expires agreed for the call (RFC 4028), seconds, and whether we refresh it. */
  sessionTimer?: { seconds: number; weRefresh: boolean } | undefined;
  /** Makes the Refer-To URI of a number we transfer to. */
  referTarget: (to: string) => string;
  /** The call ended (to forget its dialog). */
  onEnd: () => void;
}

export interface SipCall {
  readonly leg: CallLeg;
  readonly dialog: Dialog;
  /** A request inside this call's dialog. */
  handle(tx: ServerTransaction): void;
  /** The ACK of our 2xx came (with the answer, when our 2xx carried the offer). */
  acked(ack: SipRequest): void;
  /** Ends the call from the far end's side or on a failure, without sending BYE. */
  end(reason: LegEndReason): void;
}

export function createSipCall(options: SipCallOptions): SipCall {
  const { dialog, media, endpoint, clock } = options;
  const local = options.local;
  let negotiated = options.negotiated;
  let endReason: LegEndReason | null = null;
  let resolveEnded: (reason: LegEndReason) => void = () => undefined;
  const ended = new Promise<LegEndReason>((resolve) => (resolveEnded = resolve));
  const stops: (() => void)[] = [];
  /** A transfer waiting for the far end's NOTIFY saying how it went. */
  let transferring: { resolve: () => void; reject: (err: Error) => void } | null = null;
  /** Our re-INVITE's offer went in a 2xx, its answer comes in the ACK. */
  let offeredInAnswer = false;
  let receiver: MediaReceiver | null = null;

  media.update(negotiated);
  media.onTimeout(() => {
    options.logger?.info({ call_id: dialog.callId }, 'SIP call ended: no RTP from the far end');
    void sendBye().finally(() => end('carrier_failure'));
  });

  function end(reason: LegEndReason, lingerMs = 0) {
    if (endReason) return;
    endReason = reason;
    for (const stop of stops.splice(0)) stop();
    if (lingerMs > 0) {
      // The far end's last words are still in the jitter buffer when its BYE comes: hear them out.
      after(clock, lingerMs, () => finish(reason));
      return;
    }
    finish(reason);
  }

  function finish(reason: LegEndReason) {
    // Our last packets may still wait in the socket's send queue: close it a beat or two later.
    after(clock, MEDIA_CLOSE_DELAY_MS, () => media.close());
    transferring?.reject(new Error('the call ended before the transfer completed'));
    transferring = null;
    options.onEnd();
    resolveEnded(reason);
  }

  let bye: Promise<void> | null = null;
  /** One BYE per dialog, whoever ends it first (a hang-up while a transfer's BYE is out waits for it). */
  function sendBye(): Promise<void> {
    bye ??= endpoint.request(dialogRequest(dialog, 'BYE'), dialog.peer).then(() => undefined);
    return bye;
  }

  function nextSdp(direction = negotiated.direction): string {
    local.version += 1;
    return createOffer(local, direction === 'sendrecv' ? 'sendrecv' : direction);
  }

  /** An offer from the far end (re-INVITE or UPDATE): hold, resume, a new address. */
  function takeOffer(tx: ServerTransaction): boolean {
    local.version += 1;
    const answered = answerOffer(tx.request.body, local);
    if ('error' in answered) {
      tx.reply(488, { headers: [['warning', `399 parley "${answered.error}"`]] });
      return false;
    }
    negotiated = answered.media;
    media.update(negotiated);
    tx.reply(200, {
      toTag: dialog.localTag,
      headers: [
        ['contact', dialog.contact],
        ['allow', ALLOW],
        ['content-type', 'application/sdp'],
        ...sessionHeaders(tx.request),
      ],
      body: answered.answer,
    });
    return true;
  }

  /** Session-Expires answered to a refresh: the far end keeps refreshing (RFC 4028 section 9). */
  function sessionHeaders(request: SipRequest): [string, string][] {
    const asked = request.headers.get('session-expires');
    if (!asked) return [];
    const seconds = Number.parseInt(asked, 10);
    if (!Number.isFinite(seconds)) return [];
    armSessionExpiry(seconds, false);
    return [
      ['session-expires', `${seconds};refresher=uac`],
      ['require', 'timer'],
    ];
  }

  let stopSession: (() => void) | null = null;
  function armSessionExpiry(seconds: number, weRefresh: boolean) {
    stopSession?.();
    const ms = seconds * 1000;
    if (weRefresh) {
      stopSession = after(clock, ms / 2, () => void refresh(seconds));
    } else {
      // The far end refreshes; without a refresh the session is over (RFC 4028 section 10).
      const grace = Math.min(32_000, ms / 3);
      stopSession = after(clock, ms - grace, () => {
        options.logger?.info({ call_id: dialog.callId }, 'SIP session expired without a refresh');
        void sendBye().finally(() => end('carrier_failure'));
      });
    }
    stops.push(() => stopSession?.());
  }

  async function refresh(seconds: number) {
    if (endReason) return;
    const response = await endpoint.request(
      dialogRequest(dialog, 'UPDATE', {
        headers: [
          ['session-expires', `${seconds};refresher=uac`],
          ['supported', 'timer'],
        ],
      }),
      dialog.peer,
    );
    if (endReason) return;
    if (response.status === 481 || response.status === 408) {
      end('carrier_failure');
      return;
    }
    // A peer that refuses UPDATE keeps the call; we simply stop refreshing.
    if (response.status < 300) armSessionExpiry(seconds, true);
  }
  if (options.sessionTimer) armSessionExpiry(options.sessionTimer.seconds, options.sessionTimer.weRefresh);

  function notify(tx: ServerTransaction) {
    tx.reply(200);
    const state = tx.request.headers.get('subscription-state') ?? '';
    const frag = /^SIP\/2\.0 (\d{3})/.exec(tx.request.body.trim());
    const status = frag ? Number(frag[1]) : null;
    if (!transferring || status === null || status < 200) return;
    const pending = transferring;
    transferring = null;
    if (status < 300) pending.resolve();
    else pending.reject(new Error(`the transfer target answered ${status}`));
    if (/terminated/i.test(state) && status < 300) {
      // The far end now talks to the target: our part of the call is over.
      void sendBye().finally(() => end('local_hangup'));
    }
  }

  const leg: CallLeg = {
    sid: dialog.callId,
    ended,
    receive(next) {
      receiver = next;
      media.receive(next);
    },
    play: (frame) => {
      if (!endReason) media.play(frame);
    },
    clear: (fadeFrames) => media.clear(fadeFrames),
    get playedMs() {
      return media.playedMs;
    },
    get queuedMs() {
      return endReason ? 0 : media.queuedMs;
    },
    drained: () => (endReason ? Promise.resolve() : media.drained()),
    sendDtmf: (digits) => media.sendDtmf(digits),
    async transfer(to) {
      if (endReason) throw new Error('the call has ended');
      if (transferring) throw new Error('a transfer is already in progress');
      const done = new Promise<void>((resolve, reject) => (transferring = { resolve, reject }));
      const response = await endpoint.request(
        dialogRequest(dialog, 'REFER', {
          headers: [
            ['refer-to', `<${options.referTarget(to)}>`],
            ['referred-by', `<${dialog.localUri.replace(/^.*<|>.*$/g, '')}>`],
          ],
        }),
        dialog.peer,
      );
      if (response.status >= 300) {
        transferring = null;
        throw new TransferRefusedError(
          `the far end refused the transfer (${response.status} ${response.reason})`,
        );
      }
      await done;
    },
    async hangup() {
      if (endReason && !bye) return;
      end('local_hangup');
      await sendBye().catch(() => undefined);
    },
    linkStats: () => media.linkStats(),
  };

  return {
    leg,
    dialog,
    end,
    acked(ack) {
      if (offeredInAnswer && ack.body) {
        offeredInAnswer = false;
        const answer = readAnswer(ack.body);
        if (!('error' in answer)) {
          negotiated = answer;
          media.update(negotiated);
        }
      }
    },
    handle(tx) {
      const request = tx.request;
      const cseq = parseCSeq(request.headers.get('cseq') ?? '');
      if (cseq && dialog.remoteSeq !== null && cseq.seq < dialog.remoteSeq && request.method !== 'ACK') {
        tx.reply(500, { reason: 'CSeq Out of Order' });
        return;
      }
      if (cseq) dialog.remoteSeq = cseq.seq;
      if (endReason && request.method !== 'BYE') {
        tx.reply(481);
        return;
      }
      switch (request.method) {
        case 'BYE':
          tx.reply(200);
          end('remote_hangup', BYE_LINGER_MS);
          return;
        case 'INVITE':
          if (request.body) {
            if (takeOffer(tx)) tx.onAck = (ack) => this.acked(ack);
            return;
          }
          // A re-INVITE without an offer: ours goes in the 2xx, the answer in the ACK.
          offeredInAnswer = true;
          tx.onAck = (ack) => this.acked(ack);
          tx.reply(200, {
            toTag: dialog.localTag,
            headers: [
              ['contact', dialog.contact],
              ['allow', ALLOW],
              ['content-type', 'application/sdp'],
            ],
            body: nextSdp(),
          });
          return;
        case 'UPDATE':
          if (request.body) {
            takeOffer(tx);
            return;
          }
          tx.reply(200, { headers: [['contact', dialog.contact], ...sessionHeaders(request)] });
          return;
        case 'OPTIONS':
          tx.reply(200, {
            headers: [
              ['allow', ALLOW],
              ['accept', 'application/sdp'],
            ],
          });
          return;
        case 'INFO':
          {
            const digit = infoDigit(request);
            if (digit) receiver?.dtmf(digit, clock.now());
          }
          tx.reply(200);
          return;
        case 'NOTIFY':
          notify(tx);
          return;
        case 'REFER':
          // Parley never relays a call where the far end asks (no open relay, no toll fraud).
          tx.reply(603, { reason: 'Decline' });
          return;
        default:
          tx.reply(501, { headers: [['allow', ALLOW]] });
      }
    },
  };
}

/** A key sent as SIP INFO (application/dtmf-relay or application/dtmf): handed to the receiver. */
function infoDigit(request: SipRequest): string | null {
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  let digit: string | undefined;
  if (type.startsWith('application/dtmf-relay'))
    digit = /Signal\s*=\s*([0-9*#A-Da-d])/.exec(request.body)?.[1];
  else if (type.startsWith('application/dtmf')) digit = /^\s*([0-9*#A-Da-d])\s*$/.exec(request.body)?.[1];
  return digit ? digit.toUpperCase() : null;
}
