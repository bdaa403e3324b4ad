import type { Store } from '../store/index.ts';
import { workspaceSettings } from './settings.ts';
import { subaccountService } from './subaccounts.ts';

// A workspace's own settings and keys, and its subaccounts: the rules that read the stored state,
// each change in one transaction (docs/architecture.md, "Where the rules of a change live").

export type WorkspaceSettings = ReturnType<typeof workspaceSettings>;
export type SubaccountService = ReturnType<typeof subaccountService>;

export interface WorkspaceServices {
  settings: WorkspaceSettings;
  subaccounts: SubaccountService;
}

export function createWorkspaceServices(
  store: Pick<Store, 'transaction' | 'exclusively'>,
): WorkspaceServices {
  return { settings: workspaceSettings(store), subaccounts: subaccountService(store) };
}

export type { NewSubaccount } from './subaccounts.ts';
