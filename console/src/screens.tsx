import type { ComponentChildren } from 'preact';
import { Call } from './pages/call.tsx';
import { Calls } from './pages/calls.tsx';
import { Campaign } from './pages/campaign.tsx';
import { Campaigns } from './pages/campaigns.tsx';
import { ApiKeys } from './pages/keys.tsx';
import { Numbers } from './pages/numbers.tsx';

// The screens by the route's first part: `#/calls` lists, `#/calls/<id>` shows one.
export const SCREENS: Record<string, (id: string | undefined, sub: string | undefined) => ComponentChildren> =
  {
    calls: (id) => (id ? <Call callId={id} /> : <Calls />),
    campaigns: (id) => (id ? <Campaign batchCallId={id} /> : <Campaigns />),
    numbers: () => <Numbers />,
    keys: () => <ApiKeys />,
  };
