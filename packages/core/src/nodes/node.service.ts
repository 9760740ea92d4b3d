import { AppError } from '../errors';
import type { AgentGateway } from '../ports/agents';
import type { Logger } from '../logging';
import { freeCapacity, nextStatus } from './liveness';
import { diskLow, type NodeEngine, type NodeRecord, type NodeRepository, type NodeStatus, type NodeWithUsage } from './node.ports';

export interface NodeView {
  id: string;
  name: string;
  status: NodeStatus;
  grpcAddress: string;
  publicIpv4: string[];
  version: string;
  lastSeenAt: Date | null;
  capacity: { cpuMillis: number; memoryMb: number };
  reserved: { cpuMillis: number; memoryMb: number };
  free: { cpuMillis: number; memoryMb: number };
  /** The data disk at the last health check (MB); `low`: below the reserve, new work is refused. */
  disk: { totalMb: number; freeMb: number; reserveMb: number; low: boolean } | null;
  /** Cordoned by an operator (slipway-admin cordon): no new workspace is placed here; what runs here runs on. */
  cordoned: boolean;
  cordonedAt: Date | null;
  /** Since when its health checks fail; null: it answered the last one. */
  unreachableSince: Date | null;
  /** What runs here: live workspaces, their apps, databases and reservations. */
  placed: { workspaces: number; apps: number; databases: number; reservations: number };
  certNotAfter: Date;
}

export function nodeView(n: NodeWithUsage): NodeView {
  return {
    id: n.id,
    name: n.name,
    status: n.status,
    grpcAddress: n.grpcAddress,
    publicIpv4: n.publicIpv4,
    version: n.version,
    lastSeenAt: n.lastSeenAt,
    capacity: { cpuMillis: n.cpuMillis, memoryMb: n.memoryMb },
    reserved: { cpuMillis: n.reservedCpuMillis, memoryMb: n.reservedMemoryMb },
    free: freeCapacity(n),
    disk: n.disk ? { ...n.disk, low: diskLow(n) } : null,
    cordoned: n.cordonedAt !== null,
    cordonedAt: n.cordonedAt,
    unreachableSince: n.unreachableSince,
    placed: n.placed,
    certNotAfter: n.certNotAfter,
  };
}

export interface HealthReport {
  checked: number;
  online: string[];
  offline: string[];
  changed: { name: string; from: NodeStatus; to: NodeStatus }[];
}

/** Nodes as operators see them, and their liveness from health checks over mTLS. */
export class NodeService {
  constructor(
    private readonly deps: {
      nodes: NodeRepository;
      agents: AgentGateway;
      /** The agents' database engines, recorded at each health check so the engines read never asks (issue 34). */
      engines?: { databaseEngines(target: { name: string; grpcAddress: string }): Promise<NodeEngine[]> };
      logger: Logger;
      /** A node that has not answered for this long is offline. */
      offlineAfterMs: number;
      now?: () => Date;
    },
  ) {}

  async list(): Promise<NodeView[]> {
    return (await this.deps.nodes.listWithUsage()).map(nodeView);
  }

  /** Cordons (true) or uncordons (false) the node of that name: placement skips a cordoned node; nothing moves. */
  async setCordoned(name: string, cordoned: boolean): Promise<NodeView> {
    const done = await this.deps.nodes.setCordoned(name, cordoned ? (this.deps.now?.() ?? new Date()) : null);
    if (!done) throw new AppError('not_found', `No server is enrolled as "${name}"`);
    const view = (await this.list()).find((n) => n.name === name);
    if (!view) throw new AppError('not_found', `No server is enrolled as "${name}"`);
    return view;
  }

  /** Health-checks every node at once and moves each one's status with a conditional update. */
  async checkHealth(): Promise<HealthReport> {
    const nodes = await this.deps.nodes.list();
    const results = await Promise.all(nodes.map(async (n) => ({ node: n, answered: await this.answers(n) })));
    const report: HealthReport = { checked: nodes.length, online: [], offline: [], changed: [] };
    const now = this.deps.now?.() ?? new Date();
    for (const { node, answered } of results) {
      await this.deps.nodes.recordReachability(node.id, answered, now);
      if (answered !== (node.unreachableSince === null)) {
        this.deps.logger.warn({ node: node.name, since: answered ? null : now }, answered ? 'node reachable again' : 'node unreachable: its workspaces refuse changes');
      }
      const to = nextStatus(node, answered, now, this.deps.offlineAfterMs);
      const moved = await this.deps.nodes.setStatus(node.id, node.status, to, answered ? now : null);
      if (moved && to !== node.status) {
        report.changed.push({ name: node.name, from: node.status, to });
        this.deps.logger.warn({ node: node.name, from: node.status, to }, 'node status changed');
      }
      (to === 'online' ? report.online : report.offline).push(node.name);
    }
    return report;
  }

  /** The agent's free disk, reported with its health; an agent that does not report it keeps the last figures. */
  private async recordDisk(n: NodeRecord): Promise<void> {
    try {
      const info = await this.deps.agents.nodeInfo({ name: n.name, grpcAddress: n.grpcAddress });
      if (!info.disk) return;
      const disk = { totalMb: info.disk.totalMb, freeMb: info.disk.freeMb, reserveMb: info.disk.reserveMb };
      await this.deps.nodes.recordDisk(n.id, disk);
      if (diskLow({ disk }) !== diskLow(n)) {
        this.deps.logger.warn({ node: n.name, ...disk }, diskLow({ disk }) ? 'node disk below its reserve: new work refused' : 'node disk has room again');
      }
    } catch (e) {
      this.deps.logger.debug({ node: n.name, err: (e as Error).message }, 'disk figures not read');
    }
  }

  /** The engines the agent can run now, for `GET /v1/database-engines`; an agent that does not tell keeps the last list. */
  private async recordEngines(n: NodeRecord): Promise<void> {
    if (!this.deps.engines) return;
    try {
      const engines = await this.deps.engines.databaseEngines({ name: n.name, grpcAddress: n.grpcAddress });
      await this.deps.nodes.recordEngines(n.id, engines, this.deps.now?.() ?? new Date());
    } catch (e) {
      this.deps.logger.debug({ node: n.name, err: (e as Error).message }, 'database engines not read');
    }
  }

  /** The nodes that answered a health check just now (reconciliation only touches these). */
  async reachable(): Promise<NodeRecord[]> {
    const nodes = (await this.deps.nodes.list()).filter((n) => n.status === 'online');
    const answered = await Promise.all(nodes.map((n) => this.answers(n)));
    return nodes.filter((_, i) => answered[i]);
  }

  private async answers(n: NodeRecord): Promise<boolean> {
    try {
      await this.deps.agents.health({ name: n.name, grpcAddress: n.grpcAddress });
      await this.recordDisk(n);
      await this.recordEngines(n);
      return true;
    } catch (e) {
      this.deps.logger.debug({ node: n.name, err: (e as Error).message }, 'health check failed');
      return false;
    }
  }
}
