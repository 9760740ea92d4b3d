import type { OperationHandler } from '../operations/operation-runner';
import type { AgentGateway } from '../ports/agents';
import type { AppConvergeService } from './app-converge.service';
import type { ResourceLocks } from '../convergence/resource-locks';
import type { AppJobStore, AppPowerRequest, AppTeardownRequest } from './app.ports';
import { AppError } from '../errors';
import { isInUse } from './deployment-state';

/**
 * The Operation handlers of an app's container on its server: `app.power` (start, stop, restart) and `app.teardown`
 * (what a deleted app left behind). The OperationRunner claims and settles their rows; the server is the row's node.
 *
 * `app.power` does not apply the action it was queued with: under the app's lock it makes the containers match the
 * app's desired state as it is when the job runs (the last accepted intent). A restart restarts only while it is
 * still the latest intent (its generation is the app's); an older job does what is still wanted, or nothing.
 */
export class AppPowerService {
  constructor(private readonly deps: { apps: AppJobStore; agents: AgentGateway; converge: AppConvergeService; locks: ResourceLocks }) {}

  readonly power: OperationHandler = async (op, node) => {
    const request = op.payload as unknown as AppPowerRequest;
    const app = await this.deps.apps.getById(request.appId);
    if (!app || app.deletedAt || app.workspaceId !== op.workspaceId) return { skipped: 'app deleted' };
    if (!isInUse(app.currentDeployment?.status)) return { skipped: 'no live deployment' };
    if (!node) throw new AppError('node_unavailable', 'The workspace is not placed on a server');
    const target = { name: node.name, grpcAddress: node.grpcAddress };
    return this.deps.locks.hold('app', app.id, async () => {
      const fresh = await this.deps.apps.getById(app.id);
      const latest = request.generation === undefined || request.generation >= (fresh?.generation ?? 0);
      const result = await this.deps.converge.converge(target, app.id, { operationId: op.id, restart: request.action === 'restart' && latest });
      return { action: request.action, superseded: !latest, ...result };
    });
  };

  readonly teardown: OperationHandler = async (op, node) => {
    const request = op.payload as unknown as AppTeardownRequest;
    const app = await this.deps.apps.getById(request.appId);
    if (app && !app.deletedAt) throw new AppError('validation_failed', 'The app is not deleted');
    if (!node) return { containers: 0, images: 0 };
    return this.deps.locks.hold('app', request.appId, () =>
      this.deps.agents.removeApp({ name: node.name, grpcAddress: node.grpcAddress }, { operationId: op.id, workspaceId: request.workspaceId, appId: request.appId }),
    );
  };
}
