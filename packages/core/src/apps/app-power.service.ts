import { AppError } from '../errors';
import type { OperationHandler } from '../operations/operation-runner';
import type { AgentGateway } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { AppJobStore, AppPowerRequest, AppTeardownRequest } from './app.ports';
import type { AppsDomain } from './dto';
import { appRoute } from './routing.service';
import { isInUse } from './deployment-state';

/**
 * The Operation handlers of an app's container on its server: `app.power` (start, stop, restart) and `app.teardown`
 * (what a deleted app left behind). The OperationRunner claims and settles their rows; the app and the action are
 * read from the row's payload, the server is the row's node.
 */
export class AppPowerService {
  private readonly stopGraceMs: number;

  constructor(private readonly deps: { apps: AppJobStore; agents: AgentGateway; appsDomain: AppsDomain; clock: Clock; stopGraceMs?: number }) {
    this.stopGraceMs = deps.stopGraceMs ?? 10_000;
  }

  readonly power: OperationHandler = async (op, node) => {
    const request = op.payload as unknown as AppPowerRequest;
    const app = await this.deps.apps.getById(request.appId);
    if (!app || app.deletedAt || app.workspaceId !== op.workspaceId) return { skipped: 'app deleted' };
    const live = isInUse(app.currentDeployment?.status) ? app.currentDeployment : null;
    if (!live?.containerId) return { skipped: 'no live deployment' };
    if (!node) throw new AppError('node_unavailable', 'The workspace is not placed on a server');
    await this.deps.agents.appPower(
      { name: node.name, grpcAddress: node.grpcAddress },
      {
        operationId: op.id,
        workspaceId: app.workspaceId,
        appId: app.id,
        action: request.action,
        containerId: live.containerId,
        route: appRoute(app, live, this.deps.appsDomain),
        stopGraceMs: this.stopGraceMs,
      },
    );
    if (request.action === 'stop') await this.deps.apps.setState(app.id, { status: 'stopped', runningSince: null });
    else await this.deps.apps.setState(app.id, { status: 'running', statusDetail: null, runningSince: this.deps.clock() });
    return { action: request.action };
  };

  readonly teardown: OperationHandler = async (op, node) => {
    const request = op.payload as unknown as AppTeardownRequest;
    const app = await this.deps.apps.getById(request.appId);
    if (app && !app.deletedAt) throw new AppError('validation_failed', 'The app is not deleted');
    if (!node) return { containers: 0, images: 0 };
    return this.deps.agents.removeApp({ name: node.name, grpcAddress: node.grpcAddress }, { operationId: op.id, workspaceId: request.workspaceId, appId: request.appId });
  };
}
