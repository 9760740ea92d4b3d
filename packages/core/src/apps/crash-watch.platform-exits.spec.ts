import { LABELS, type AgentGateway, type ContainerExitEvent } from '../ports/agents';
import { InProcessResourceLocks } from '../convergence/resource-locks';
import type { AppJobStore, AppStateChange, AppWithDeployment } from './app.ports';
import { CrashWatchService } from './crash-watch.service';

const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const node = { name: 'n1', grpcAddress: '127.0.0.1:1' };

function setup() {
  const app = { id: 'a-1', currentDeploymentId: 'd-2', currentDeployment: { id: 'd-2', status: 'live', finishedAt: new Date(0) }, desiredState: 'running', status: 'running', statusDetail: null, deletedAt: null } as unknown as AppWithDeployment & { deletedAt: null };
  const writes: AppStateChange[] = [];
  const apps = {
    getById: async () => app,
    // As the conditional update in PostgreSQL: only while the deployment is still current and the app meant to run.
    setStateIf: async (_id: string, expected: { currentDeploymentId: string }, s: AppStateChange) => {
      if (app.currentDeploymentId !== expected.currentDeploymentId) return false;
      writes.push(s);
      return true;
    },
  } as unknown as AppJobStore;
  const agents = { containerLogs: async () => 'boom\n' } as Partial<AgentGateway> as AgentGateway;
  const locks = new InProcessResourceLocks();
  const deployments = { move: async () => null, logState: async () => ({ lastSeq: 0, bytes: 0 }), appendLogs: async () => undefined };
  const watch = new CrashWatchService({ apps, deployments, agents, clock: () => new Date(0), logger: quiet, locks });
  const exit = (deploymentId: string, exitCode: number): ContainerExitEvent => ({
    containerId: 'c',
    action: 'die',
    exitCode,
    labels: { [LABELS.app]: 'a-1', [LABELS.deployment]: deploymentId },
    atMs: 0,
  });
  return { app, writes, locks, watch, exit };
}

describe('CrashWatchService and the platform\'s own exits', () => {
  it('an exit of the current container on its own marks the app crashed with the code and last lines', async () => {
    const { watch, writes, exit } = setup();
    await watch.containerExited(node, exit('d-2', 3));
    expect(writes).toEqual([{ status: 'crashed', runningSince: null, statusDetail: expect.objectContaining({ exitCode: 3, restarts: 0, tail: 'boom\n' }) }]);
  });

  it('ignores exits the platform caused: SIGTERM/SIGKILL codes and a clean exit 0, exits while a job holds the app, and old deployments', async () => {
    const { watch, writes, exit, locks } = setup();
    for (const code of [0, 137, 143]) await watch.containerExited(node, exit('d-2', code));
    await watch.containerExited(node, exit('d-1', 3));
    let release!: () => void;
    const held = locks.hold('app', 'a-1', () => new Promise<void>((r) => (release = r)));
    await watch.containerExited(node, exit('d-2', 3));
    release();
    await held;
    expect(writes).toEqual([]);
  });
});
