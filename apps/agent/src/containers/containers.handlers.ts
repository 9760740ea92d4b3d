import { AppError, LABELS, type ManagedContainer } from '@slipway/core';
import type { AgentHandlers } from '@slipway/proto';
import { serverStream, unary, untilCancelled, type HandlerTable } from '../rpc/handlers';
import type { OperationJournal } from '../rpc/journal';
import { EXIT_ACTIONS, type ContainerEventHub } from './container-events';
import type { Containers } from './containers';
import type { DockerRuntime } from './docker.runtime';

const unreachable = () => new AppError('node_unavailable', 'The Docker engine is not reachable');

/** Managed containers whatever their workload: listing, removal, events (exits, removals, starts) and logs. */
export function containersHandlers(deps: {
  journal: OperationJournal;
  docker: DockerRuntime;
  containers: Containers;
  events: ContainerEventHub;
  /** What the app rollouts know of listed containers (settle windows, decision 0038). */
  decorate?: (list: ManagedContainer[]) => Promise<ManagedContainer[]>;
  /** A container the app rollouts judge (a release inside its settle window): its exit event says so. */
  settling?: (containerId: string, appId: string) => boolean;
}): Pick<HandlerTable<AgentHandlers>, 'ListManagedContainers' | 'RemoveManagedContainers' | 'WatchContainerEvents' | 'TailContainerLogs'> {
  const { journal, docker, containers, events, decorate = async (list: ManagedContainer[]) => list, settling = () => false } = deps;
  return {
    ListManagedContainers: unary(async (req) => {
      const f = req.filter;
      const containers = await docker.listManaged({
        workspaceId: f?.workspaceId || undefined,
        appId: f?.appId || undefined,
        deploymentId: f?.deploymentId || undefined,
        databaseId: f?.databaseId || undefined,
      });
      return { containers: await decorate(containers) };
    }),

    RemoveManagedContainers: unary(async (req) => {
      const { result, replayed } = await journal.run(req.operationId, 'RemoveManagedContainers', () => docker.removeManaged(req.containerIds));
      return { ...result, replayed };
    }),

    // Open until the control plane cancels: an engine restart does not end it; a snapshot follows the restart.
    // Without `lifecycle` (a control plane older than issue 27): exits only, as it expects.
    WatchContainerEvents: serverStream(async (req, send, signal) => {
      const unsubscribe = events.subscribe({
        onExit: (e) => {
          if (req.lifecycle || EXIT_ACTIONS.has(e.action)) void send({ ...e, containers: [], settling: e.action === 'die' && settling(e.containerId, e.labels[LABELS.app] ?? '') });
        },
        onSnapshot: (s) => void send({ containerId: '', action: 'snapshot', exitCode: 0, labels: {}, atMs: s.atMs, containers: s.containers }),
      });
      await untilCancelled(signal);
      unsubscribe();
    }),

    TailContainerLogs: serverStream(async (req, send, signal) => {
      const { done, stop } = await containers.logs(req.containerId, { tail: req.tail, follow: req.follow }, (stream, data) => void send({ stream, data })).catch((e: { statusCode?: number }) => {
        throw e.statusCode === 404 ? new AppError('not_found', 'No such managed container') : unreachable();
      });
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      await done;
    }),
  };
}
