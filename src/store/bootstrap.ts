import type { Store } from './store.ts';

// Start-up key rules (DESIGN.md section 8): a bootstrap key no workspace has yet gets the
// workspace `default` (enterprise plan); with no key at all and no bootstrap key, one is generated.
// Both run under a cross-process lock so that two nodes starting together create one workspace.

export const DEFAULT_MAX_CONCURRENT_CALLS = 10;

export type BootstrapResult =
  { kind: 'unchanged' } | { kind: 'created'; workspaceId: string; secret: string; generated: boolean };

export async function bootstrapWorkspace(
  store: Store,
  bootstrapKey: string | undefined,
): Promise<BootstrapResult> {
  return store.exclusively('parley_bootstrap', async (repos) => {
    if (bootstrapKey !== undefined) {
      if (await repos.apiKeys.existsForSecret(bootstrapKey)) return { kind: 'unchanged' };
    } else if ((await repos.apiKeys.count()) > 0) {
      return { kind: 'unchanged' };
    }
    const workspace = await repos.workspaces.create({
      name: 'default',
      plan: 'enterprise',
      maxConcurrentCalls: DEFAULT_MAX_CONCURRENT_CALLS,
    });
    const { secret } = await repos.apiKeys.create(workspace.id, 'bootstrap', bootstrapKey);
    return { kind: 'created', workspaceId: workspace.id, secret, generated: bootstrapKey === undefined };
  });
}
