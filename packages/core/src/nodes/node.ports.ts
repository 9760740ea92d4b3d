/** A server running the agent, as the control plane records it. */
export interface NodeRecord {
  id: string;
  name: string;
  grpcAddress: string;
  publicIpv4: string[];
  cpuMillis: number;
  memoryMb: number;
  version: string;
  certFingerprint: string;
  certNotAfter: Date;
  status: NodeStatus;
  lastSeenAt: Date | null;
  /** The data disk as the agent last reported it with its health (MB); null before the first report. */
  disk: { totalMb: number; freeMb: number; reserveMb: number } | null;
  /** When an operator cordoned it (no new workspace is placed there); null: open. */
  cordonedAt: Date | null;
  /** Since when its health checks fail (issue 31); null: it answered the last one. */
  unreachableSince: Date | null;
  /** The database engines its agent said it can run at its last health check, and when (issue 34); null before. */
  databaseEngines: { engines: NodeEngine[]; at: Date } | null;
  createdAt: Date;
}

/** One engine as an agent reports it (databases.proto DatabaseEngines). */
export interface NodeEngine {
  engine: string;
  image: string;
  available: boolean;
  /** How to make the image available when it is not (`docker load -i …`). */
  hint: string;
}

export type NodeStatus = 'online' | 'offline';

/** What an enrollment records of a node: its address, capacity and certificate. */
/** Whether a node's free disk is below its reserve: new builds, deployments and uploads wait (running apps run on). */
export const diskLow = (n: Pick<NodeRecord, 'disk'>): boolean => n.disk !== null && n.disk.freeMb < n.disk.reserveMb;

export type EnrolledNode = Pick<NodeRecord, 'name' | 'grpcAddress' | 'publicIpv4' | 'cpuMillis' | 'memoryMb' | 'version' | 'certFingerprint' | 'certNotAfter'>;

export interface NodeWithUsage extends NodeRecord {
  reservedCpuMillis: number;
  reservedMemoryMb: number;
  /** What runs there: live workspaces, their apps and databases, and their reservations (rows). */
  placed: { workspaces: number; apps: number; databases: number; reservations: number };
}

export interface NodeRepository {
  /** Every node with what the workspaces placed on it reserve, by name. */
  listWithUsage(): Promise<NodeWithUsage[]>;
  list(): Promise<NodeRecord[]>;
  get(nodeId: string): Promise<NodeRecord | null>;
  /** Inserts the node, or replaces the address, capacity and certificate of the node with that name. */
  upsertEnrolled(input: EnrolledNode): Promise<NodeRecord>;
  /**
   * Conditional: moves the node from `from` to `to` (and lastSeenAt forward when seen), so a check that
   * raced with another loses cleanly. false when the node was no longer in `from`.
   */
  setStatus(nodeId: string, from: NodeStatus, to: NodeStatus, seenAt: Date | null): Promise<boolean>;
  /** A health check's outcome: answered clears `unreachableSince`; not answered sets it to `at` unless already set. */
  recordReachability(nodeId: string, answered: boolean, at: Date): Promise<void>;
  /** Cordons (at `at`) or uncordons the node of that name; null when there is none. */
  setCordoned(name: string, at: Date | null): Promise<NodeRecord | null>;
  /** The data disk the agent reported with its health. */
  recordDisk(nodeId: string, disk: { totalMb: number; freeMb: number; reserveMb: number }): Promise<void>;
  /** The database engines the agent reported at its health check (the engines read shows them with `at`). */
  recordEngines(nodeId: string, engines: NodeEngine[], at: Date): Promise<void>;
}

export interface EnrollmentTokenRepository {
  create(input: { tokenHash: Buffer; expiresAt: Date }): Promise<{ id: string }>;
  /** true when a token with that hash exists, is unused and has not expired at `now`. */
  isUsable(tokenHash: Buffer, now: Date): Promise<boolean>;
  /** Conditional: marks the token used (once); null when it was not usable any more. */
  consume(tokenHash: Buffer, now: Date): Promise<{ id: string } | null>;
  linkNode(tokenId: string, nodeId: string): Promise<void>;
}

/** The control plane's certificate authority, as enrollment needs it. */
export interface AgentCertificateSigner {
  /** The CA's certificate, which agents trust for the control plane's client certificate. */
  caCertificate(): Promise<string>;
  /** Throws on a CSR that is not valid or not self-signed. */
  signAgentCsr(csrPem: string, nodeName: string, hosts: string[]): Promise<{ certPem: string; fingerprint: string; notAfter: Date }>;
}
