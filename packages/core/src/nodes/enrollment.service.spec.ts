import { AppError } from '../errors';
import type { AgentCertificateSigner, EnrollmentTokenRepository, NodeRecord, NodeRepository } from './node.ports';
import { EnrollmentService, type EnrollInput } from './enrollment.service';

class MemoryTokens implements EnrollmentTokenRepository {
  rows: { id: string; tokenHash: Buffer; expiresAt: Date; usedAt: Date | null; nodeId: string | null }[] = [];
  async create(input: { tokenHash: Buffer; expiresAt: Date }) {
    const row = { id: `t${this.rows.length + 1}`, ...input, usedAt: null, nodeId: null };
    this.rows.push(row);
    return { id: row.id };
  }
  private find(hash: Buffer, now: Date) {
    return this.rows.find((r) => r.tokenHash.equals(hash) && !r.usedAt && r.expiresAt > now);
  }
  async isUsable(hash: Buffer, now: Date) {
    return !!this.find(hash, now);
  }
  async consume(hash: Buffer, now: Date) {
    const r = this.find(hash, now);
    if (!r) return null;
    r.usedAt = now;
    return { id: r.id };
  }
  async linkNode(id: string, nodeId: string) {
    this.rows.find((r) => r.id === id)!.nodeId = nodeId;
  }
}

const signer: AgentCertificateSigner = {
  caCertificate: async () => 'CA',
  signAgentCsr: async (csr, name, hosts) => {
    if (csr !== 'good-csr') throw new Error('not a CSR');
    return { certPem: `cert:${name}:${hosts.join(',')}`, fingerprint: 'ff', notAfter: new Date(Date.now() + 1e9) };
  },
};

function setup(now = () => new Date()) {
  const tokens = new MemoryTokens();
  const upserts: unknown[] = [];
  const nodes = { upsertEnrolled: async (input: object) => (upserts.push(input), { id: 'node-1', ...input } as NodeRecord) } as unknown as NodeRepository;
  return { tokens, upserts, service: new EnrollmentService({ tokens, nodes, ca: signer, now }) };
}

const input = (token: string): EnrollInput => ({ token, csr: 'good-csr', name: 'n1', grpcAddress: '10.0.0.5:7443', publicIpv4: ['203.0.113.7'], cpuMillis: 2000, memoryMb: 4096, version: '0.1.0' });

describe('EnrollmentService', () => {
  it('signs for the name and host, records the node and uses the token once', async () => {
    const { service, tokens, upserts } = setup();
    const { token } = await service.createToken();
    expect(token).toMatch(/^swe_/);
    expect(tokens.rows[0]!.tokenHash).toHaveLength(32); // only the hash is stored
    expect(await service.enroll(input(token))).toEqual({ nodeId: 'node-1', certificate: 'cert:n1:10.0.0.5', caCertificate: 'CA' });
    expect(upserts).toEqual([expect.objectContaining({ name: 'n1', grpcAddress: '10.0.0.5:7443', certFingerprint: 'ff' })]);
    expect(tokens.rows[0]).toMatchObject({ nodeId: 'node-1', usedAt: expect.any(Date) });
    await expect(service.enroll(input(token))).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('refuses an expired or unknown token', async () => {
    let now = new Date('2026-11-21T10:00:00Z');
    const { service } = setup(() => now);
    const { token } = await service.createToken(60_000);
    now = new Date('2026-11-21T10:01:00Z');
    await expect(service.enroll(input(token))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(service.enroll(input('swe_nope'))).rejects.toBeInstanceOf(AppError);
  });

  it('refuses a bad CSR, bad addresses and lifetimes without using the token', async () => {
    const { service, tokens } = setup();
    const { token } = await service.createToken();
    await expect(service.enroll({ ...input(token), csr: 'junk' })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(service.enroll({ ...input(token), grpcAddress: 'no-port' })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(service.enroll({ ...input(token), publicIpv4: ['::1'] })).rejects.toMatchObject({ code: 'validation_failed' });
    expect(tokens.rows[0]!.usedAt).toBeNull();
    await expect(service.createToken(10)).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
