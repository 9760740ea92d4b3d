import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '@slipway/core';
import type { CaddyIngress } from './caddy.ingress';
import { CustomDomains, DEFAULT_DOMAIN_SETTINGS } from './custom-domains';

const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const ingress = { onChange() {}, routes: () => [], haproxyOwnSocket: () => null } as unknown as CaddyIngress;

describe('CustomDomains.certificates', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-domains-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("says why a certificate is missing from Caddy's last issuance error for the name, cleared by a later success", async () => {
    const file = path.join(dir, 'domains.json');
    const domains = [
      { domainId: 'a', appId: 'x', hostname: 'a.example.com' },
      { domainId: 'b', appId: 'x', hostname: 'b.example.com' },
    ];
    await writeFile(file, JSON.stringify({ domains, owned: [] }));
    const log = [
      { level: 'error', logger: 'tls.obtain', msg: 'could not get certificate from issuer', identifier: 'a.example.com', error: 'HTTP 403 urn:ietf:params:acme:error:unauthorized' },
      { level: 'info', logger: 'tls.obtain', msg: 'certificate obtained successfully', identifier: 'a.example.com' },
      { level: 'error', logger: 'tls.obtain', msg: 'could not get certificate from issuer', identifier: 'b.example.com', error: 'CAA record for b.example.com prevents issuance' },
    ];
    await writeFile(path.join(dir, 'caddy-tls.log'), log.map((l) => JSON.stringify(l)).join('\n') + '\nnot json\n');
    // Nothing listens on the HTTPS port: no certificate is served.
    const d = await new CustomDomains('http://127.0.0.1:1', file, ingress, { ...DEFAULT_DOMAIN_SETTINGS, httpsPort: 1 }, quiet).load();
    const certs = await d.certificates(['a.example.com', 'B.example.com', 'c.example.com']);
    expect(certs).toEqual([
      { hostname: 'a.example.com', status: 'pending', issuer: '', notAfterMs: 0, error: '' },
      { hostname: 'B.example.com', status: 'failed', issuer: '', notAfterMs: 0, error: 'could not get certificate from issuer: CAA record for b.example.com prevents issuance' },
      { hostname: 'c.example.com', status: 'none', issuer: '', notAfterMs: 0, error: '' },
    ]);
  });

  it("reads the chain and key Caddy obtained for one of its own hostnames from the policy's storage (issue 31)", async () => {
    const file = path.join(dir, 'domains.json');
    const d = new CustomDomains('http://127.0.0.1:1', file, ingress, { ...DEFAULT_DOMAIN_SETTINGS, httpsPort: 1 }, quiet);
    expect(d.certDir).toBe(path.join(dir, 'caddy-certs'));
    const host = path.join(d.certDir, 'certificates', '198.18.0.1-14000-dir', 'shop.example.test');
    await mkdir(host, { recursive: true });
    await writeFile(path.join(host, 'shop.example.test.crt'), 'CHAIN');
    await writeFile(path.join(host, 'shop.example.test.key'), 'KEY');
    expect(await d.issued('Shop.Example.Test')).toEqual({ certificatePem: 'CHAIN', keyPem: 'KEY' });
    expect(await d.issued('other.example.test')).toBeNull();
  });
});
