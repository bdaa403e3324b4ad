import type { ComponentChildren } from 'preact';
import { Actions } from './pages/actions.tsx';
import { Analytics } from './pages/analytics.tsx';
import { Call } from './pages/call.tsx';
import { Calls } from './pages/calls.tsx';
import { Campaign } from './pages/campaign.tsx';
import { Campaigns } from './pages/campaigns.tsx';
import { ApiKeys } from './pages/keys.tsx';
import { Knowledge } from './pages/knowledge.tsx';
import { Logs } from './pages/logs.tsx';
import { Numbers } from './pages/numbers.tsx';
import { Simulations } from './pages/simulations.tsx';

// The screens by the route's first part: `#/calls` lists, `#/calls/<id>` shows one.
export const SCREENS: Record<string, (id: string | undefined, sub: string | undefined) => ComponentChildren> =
  {
    calls: (id) => (id ? <Call callId={id} /> : <Calls />),
    campaigns: (id) => (id ? <Campaign batchCallId={id} /> : <Campaigns />),
    numbers: () => <Numbers />,
    keys: () => <ApiKeys />,
    knowledge: (id) => <Knowledge id={id} />,
    actions: (id) => <Actions id={id} />,
    simulations: (id, sub) => <Simulations id={id} session={sub} />,
    logs: (id) => <Logs id={id} />,
    analytics: () => <Analytics />,
  };
