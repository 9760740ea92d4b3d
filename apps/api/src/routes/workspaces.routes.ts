import type { PlanService, WorkspaceService } from '@slipway/core';
import type { HandlerTable } from '../http/operations';

export function workspaceRoutes(s: { workspaces: WorkspaceService; plans: PlanService }): HandlerTable {
  return {
    listWorkspaces: async ({ actor }) => ({ data: await s.workspaces.list(actor) }),
    createWorkspace: ({ actor, body }) => s.workspaces.create(actor, body),
    getWorkspace: ({ access }) => s.workspaces.get(access),
    updateWorkspace: ({ access, body }) => s.workspaces.update(access, body),
    deleteWorkspace: async ({ access }) => {
      await s.workspaces.delete(access);
      return { ok: true };
    },
    getWorkspacePlan: ({ access }) => s.plans.forWorkspace(access),
    listPlans: async () => ({ data: await s.plans.catalog() }),
  };
}
