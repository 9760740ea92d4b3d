/**
 * What services need of the agents. packages/proto implements it over gRPC with mutual TLS, one
 * connection per server. Every failure to reach an agent (down, timed out, refused) is thrown as
 * AppError('node_unavailable'), which job processors treat as transient and retry.
 */
export interface AgentTarget {
  /** The node's name; null for an address that has not enrolled (readiness of configured addresses). */
  name: string | null;
  grpcAddress: string;
}

/** Docker labels on every object the agent makes; reconciliation only ever removes objects carrying them. */
export const LABELS = {
  workspace: 'slipway.workspace',
  app: 'slipway.app',
  deployment: 'slipway.deployment',
  database: 'slipway.database',
} as const;

export interface ContainerFilter {
  workspaceId?: string;
  appId?: string;
  deploymentId?: string;
  databaseId?: string;
}

export interface ManagedContainer {
  id: string;
  name: string;
  image: string;
  state: string;
  labels: Record<string, string>;
  createdAtMs: number;
}

export interface NoopResult {
  operationId: string;
  /** Epoch milliseconds (fractional) on the agent's clock. */
  startedAtMs: number;
  finishedAtMs: number;
  replayed: boolean;
}

export interface ContainerExitEvent {
  containerId: string;
  action: string;
  exitCode: number;
  labels: Record<string, string>;
  atMs: number;
}

export interface AgentNodeInfo {
  name: string;
  version: string;
  cpuMillis: number;
  memoryMb: number;
  publicIpv4: string[];
  grpcAddress: string;
}

export interface AgentGateway {
  /** grpc.health.v1 Check over mTLS; resolves only when the agent answers SERVING. */
  health(target: AgentTarget, timeoutMs?: number): Promise<void>;
  nodeInfo(target: AgentTarget): Promise<AgentNodeInfo>;
  noop(target: AgentTarget, input: { operationId: string; delayMs: number }): Promise<NoopResult>;
  listManagedContainers(target: AgentTarget, filter?: ContainerFilter): Promise<ManagedContainer[]>;
  removeManagedContainers(
    target: AgentTarget,
    input: { operationId: string; containerIds: string[] },
  ): Promise<{ removed: string[]; skipped: string[] }>;
  /** Container exits as the agent reports them, until `stop()` or the stream breaks (then `onEnd`). */
  watchContainerEvents(
    target: AgentTarget,
    onEvent: (e: ContainerExitEvent) => void,
    onEnd: (error: Error | null) => void,
  ): { stop(): void };
}
