import { createHash, randomBytes } from 'node:crypto';
import { isIPv4 } from 'node:net';
import { AppError } from '../errors';
import type { AgentCertificateSigner, EnrollmentTokenRepository, NodeRecord, NodeRepository } from './node.ports';

export const ENROLLMENT_TOKEN_PREFIX = 'swe_';
export const DEFAULT_ENROLLMENT_TTL_MS = 60 * 60 * 1000;

/** What a joining agent sends: the one-time token, its key's CSR, and what it says of its server. */
export type EnrollInput = { token: string; csr: string } & Pick<NodeRecord, 'name' | 'grpcAddress' | 'publicIpv4' | 'cpuMillis' | 'memoryMb' | 'version'>;

export interface EnrollResult {
  nodeId: string;
  certificate: string;
  caCertificate: string;
}

const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();

/** A one-time token for `slipway-agent join`, shown once; only its SHA-256 is stored. */
export async function createEnrollmentToken(
  tokens: Pick<EnrollmentTokenRepository, 'create'>,
  ttlMs = DEFAULT_ENROLLMENT_TTL_MS,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  if (!Number.isInteger(ttlMs) || ttlMs < 1000 || ttlMs > 30 * 86_400_000) {
    throw new AppError('validation_failed', 'The token lifetime must be between 1 second and 30 days');
  }
  const token = `${ENROLLMENT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + ttlMs);
  await tokens.create({ tokenHash: hashToken(token), expiresAt });
  return { token, expiresAt };
}

/**
 * Servers join with a one-time, expiring token (only its SHA-256 is stored). The agent sends a CSR; the
 * CA signs it for the node's name and address, and the node is recorded (offline until the first health
 * check answers). The token is the only credential of the call.
 */
export class EnrollmentService {
  constructor(
    private readonly deps: {
      tokens: EnrollmentTokenRepository;
      nodes: NodeRepository;
      ca: AgentCertificateSigner;
      now?: () => Date;
    },
  ) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  createToken(ttlMs = DEFAULT_ENROLLMENT_TTL_MS): Promise<{ token: string; expiresAt: Date }> {
    return createEnrollmentToken(this.deps.tokens, ttlMs, this.now());
  }

  async enroll(input: EnrollInput): Promise<EnrollResult> {
    const refused = new AppError('unauthorized', 'The enrollment token is unknown, already used or expired');
    const tokenHash = hashToken(input.token);
    if (!(await this.deps.tokens.isUsable(tokenHash, this.now()))) throw refused;

    const host = hostOf(input.grpcAddress);
    if (input.publicIpv4.some((ip) => !isIPv4(ip))) throw new AppError('validation_failed', 'publicIpv4 must list IPv4 addresses');
    let issued: { certPem: string; fingerprint: string; notAfter: Date };
    try {
      issued = await this.deps.ca.signAgentCsr(input.csr, input.name, [host]);
    } catch (e) {
      throw new AppError('validation_failed', `The certificate signing request was refused: ${(e as Error).message}`);
    }
    // Used once: of two joins racing with one token, only one gets here.
    const consumed = await this.deps.tokens.consume(tokenHash, this.now());
    if (!consumed) throw refused;
    const node = await this.deps.nodes.upsertEnrolled({
      name: input.name,
      grpcAddress: input.grpcAddress,
      publicIpv4: input.publicIpv4,
      cpuMillis: input.cpuMillis,
      memoryMb: input.memoryMb,
      version: input.version,
      certFingerprint: issued.fingerprint,
      certNotAfter: issued.notAfter,
    });
    await this.deps.tokens.linkNode(consumed.id, node.id);
    return { nodeId: node.id, certificate: issued.certPem, caCertificate: await this.deps.ca.caCertificate() };
  }
}

function hostOf(address: string): string {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(address);
  if (!m) throw new AppError('validation_failed', 'grpcAddress must be host:port');
  return m[1]!;
}
