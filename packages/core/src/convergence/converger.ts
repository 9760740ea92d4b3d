import type { ManagedContainer } from '../ports/agents';
import type { ResourceKind } from './resource-locks';

/** A server as convergence needs it. */
export interface ConvergeNode {
  id: string;
  name: string;
  grpcAddress: string;
}

/** One thing done to bring a resource to its desired state (or its status to what the server shows), and why. */
export interface ConvergeDone {
  kind: string;
  reason: string;
  containerId?: string;
}

/** A repair as a pass (or an event) reports it. */
export interface Repair extends ConvergeDone {
  node: string;
  resource: ResourceKind;
  id: string;
}

export interface ConvergeOneOptions<C> {
  /** Agent commands are journaled under ids made from it: a retry does each once. */
  operationId: string;
  /** Why it is compared now (a pass, a container event). */
  why: string;
  /** What `listOnNode` learned of the node in this pass (absent for one resource compared on an event). */
  context?: C;
}

/**
 * One kind of workload (apps, databases) as the reconciler sees it: which of them a server should hold, and how to
 * bring one to its desired state. The reconciler (passes and container events alike) takes the resource's lock
 * (`ResourceLocks`, by `kind`) around `convergeOne`, and leaves a busy one to its holder.
 */
export interface Converger<C = unknown> {
  readonly kind: ResourceKind;
  /** The ids of this kind's resources placed on the node, and what was read to find them (handed to convergeOne). */
  listOnNode(node: ConvergeNode, containers: ManagedContainer[]): Promise<{ ids: string[]; context: C }>;
  /** Brings one resource to its desired state and its recorded status to what the server shows; the caller holds its lock. */
  convergeOne(node: ConvergeNode, id: string, o: ConvergeOneOptions<C>): Promise<ConvergeDone[]>;
  /** After every resource of the node was compared (apps: the node's routes; databases: data of rows gone). */
  afterNode?(node: ConvergeNode, o: { runId: string; busy: string[]; context: C }): Promise<ConvergeDone[]>;
}
