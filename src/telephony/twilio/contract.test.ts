import { FAKE_ACCOUNT_SID, FAKE_AUTH_TOKEN, startFakeTwilio } from '../../../test/twilio-server/index.ts';
import { startTwilioEndpoints } from '../../../test/twilio-server/endpoints.ts';
import { runCarrierContract } from '../testing/index.ts';
import { createTwilioCarrier } from './carrier.ts';
import { createTwilioRest } from './rest.ts';

// The carrier contract on `twilio`: the real carrier against the fake Twilio, which places the
// calls, posts signed status callbacks and plays the suite's callee on the far end of a real
// Media Stream socket.

const to = (lastFour: string) => `+1415555${lastFour}`;

runCarrierContract('twilio', async ({ callee, voice }) => {
  const endpoints = await startTwilioEndpoints();
  const fake = await startFakeTwilio({ voice: { callee, voice } });
  const account = { accountSid: FAKE_ACCOUNT_SID, authToken: FAKE_AUTH_TOKEN };
  const carrier = createTwilioCarrier({
    publicUrl: endpoints.publicUrl,
    rest: createTwilioRest({ baseUrl: fake.url }),
    directory: {
      accountForCall: async () => account,
      account: async (sid) => (sid === account.accountSid ? account : null),
      workspaceOf: async () => null,
    },
  });
  endpoints.use(carrier);
  return {
    carrier,
    from: to('0100'),
    numbers: {
      human: to('0123'),
      noAnswer: to('0000'),
      busy: to('1111'),
      failed: to('2222'),
      machine: to('3333'),
      hangsUp: to('4444'),
    },
    close: async () => {
      await fake.close();
      await endpoints.close();
    },
  };
});
