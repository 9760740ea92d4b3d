import type { AgentHandlers } from '@slipway/proto';
import { unary, type HandlerTable } from '../rpc/handlers';
import type { OperationJournal } from '../rpc/journal';
import type { WorkspacesRuntime } from './workspaces.runtime';

/** Workspaces as a whole on this server: removal of a deleted one (once per operation id), its networks. */
export function workspacesHandlers(deps: { journal: OperationJournal; workspaces: WorkspacesRuntime }): Pick<HandlerTable<AgentHandlers>, 'RemoveWorkspace' | 'ListWorkspaceNetworks'> {
  const { journal, workspaces } = deps;
  return {
    RemoveWorkspace: unary(async (req) => {
      const { result, replayed } = await journal.run(req.operationId, 'RemoveWorkspace', () => workspaces.remove({ workspaceId: req.workspaceId, appIds: [...req.appIds] }));
      return { ...result, replayed };
    }),

    ListWorkspaceNetworks: unary(async () => ({ networks: await workspaces.listNetworks() })),
  };
}
