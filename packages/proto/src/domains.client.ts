import type { AgentTarget, CertificateState, DnsObservation, DomainCertificateStorage, DomainsGateway, IssuedCertificate, RemoteDomain, RoutedDomain, StoredCertificate } from '@slipway/core';
import type { AgentPool } from './client';
import { unary } from './unary';
import type { CheckDomainResponse__Output } from './generated/slipway/agent/v1/CheckDomainResponse';
import type { DomainCertificatesResponse__Output } from './generated/slipway/agent/v1/DomainCertificatesResponse';
import type { DomainsClient } from './generated/slipway/agent/v1/Domains';
import type { ImportCertificatesResponse__Output } from './generated/slipway/agent/v1/ImportCertificatesResponse';
import type { RemoveCertificatesResponse__Output } from './generated/slipway/agent/v1/RemoveCertificatesResponse';
import type { StoredCertificates__Output } from './generated/slipway/agent/v1/StoredCertificates';
import type { SyncDomainsResponse__Output } from './generated/slipway/agent/v1/SyncDomainsResponse';
import { loadDomainsProto } from './load';

export type { DomainsClient };

/** The `slipway.agent.v1.Domains` service of each server over the pool's connection; the DomainsGateway port of @slipway/core. */
export class DomainsPool implements DomainsGateway, DomainCertificateStorage {
  constructor(private readonly agents: AgentPool) {}

  client(target: AgentTarget): DomainsClient {
    const { Domains } = loadDomainsProto().slipway.agent.v1;
    return this.agents.connection(target).service('domains', (address, credentials, options) => new Domains(address, credentials, options));
  }

  async checkDomain(target: AgentTarget, input: { hostname: string; txtName: string }): Promise<DnsObservation> {
    const r = await unary<CheckDomainResponse__Output>(target, (cb, o) => this.client(target).checkDomain(input, o, cb));
    return { a: r.a, aaaa: r.aaaa, txt: r.txt, cnames: r.cnames, error: r.error || null };
  }

  async syncDomains(target: AgentTarget, domains: RoutedDomain[], remote: RemoteDomain[] = []): Promise<{ added: number; removed: number }> {
    const others = remote.map(({ certificate, ...d }) => ({ ...d, certificatePem: certificate?.certificatePem ?? '', keyPem: certificate?.keyPem ?? '' }));
    return unary<SyncDomainsResponse__Output>(target, (cb, o) => this.client(target).syncDomains({ domains, remote: others }, o, cb));
  }

  async issuedCertificates(target: AgentTarget, hostnames: string[]): Promise<Map<string, IssuedCertificate>> {
    const r = await unary<DomainCertificatesResponse__Output>(target, (cb, o) => this.client(target).domainCertificates({ hostnames, withKeys: true }, o, cb));
    return new Map(r.certificates.filter((c) => c.certificatePem && c.keyPem).map((c) => [c.hostname, { certificatePem: c.certificatePem, keyPem: c.keyPem }]));
  }

  async exportCertificates(target: AgentTarget, hostnames: string[]): Promise<StoredCertificate[]> {
    const r = await unary<StoredCertificates__Output>(target, (cb, o) => this.client(target).exportCertificates({ hostnames }, o, cb));
    return r.certificates.map((c) => ({ hostname: c.hostname, issuerKey: c.issuerKey, certificatePem: c.certificatePem, keyPem: c.keyPem, metaJson: c.metaJson }));
  }

  async importCertificates(target: AgentTarget, certificates: StoredCertificate[]): Promise<{ stored: number }> {
    return unary<ImportCertificatesResponse__Output>(target, (cb, o) => this.client(target).importCertificates({ certificates }, o, cb));
  }

  async removeCertificates(target: AgentTarget, hostnames: string[]): Promise<{ removed: number; kept: string[] }> {
    return unary<RemoveCertificatesResponse__Output>(target, (cb, o) => this.client(target).removeCertificates({ hostnames }, o, cb));
  }

  async certificates(target: AgentTarget, hostnames: string[]): Promise<Map<string, CertificateState>> {
    const r = await unary<DomainCertificatesResponse__Output>(target, (cb, o) => this.client(target).domainCertificates({ hostnames }, o, cb));
    return new Map(
      r.certificates.map((c) => [
        c.hostname,
        {
          status: c.status as CertificateState['status'],
          issuer: c.issuer || null,
          notAfter: c.notAfterMs ? new Date(c.notAfterMs).toISOString() : null,
          error: c.error || null,
        },
      ]),
    );
  }
}
