import path from 'node:path';
import { createFilesOnce, readFiles } from './files';
import { createCertificateAuthority, issueKeyAndCert } from './x509';

/**
 * The certificate authority of databases' public TLS ports, under `<dataDir>/databases-ca` (ca.key 0600, ca.crt), apart
 * from the agents' mTLS CA: a database's superuser can read the key its engine serves with, so that key must be good
 * for nothing but that server's database ports. Each server gets one certificate (`<dataDir>/databases-tls/<nodeId>/server.{key,crt}`), made
 * once and kept, naming its public addresses and loopback; clients verify with the CA (GET /v1/database-ca.pem).
 * Files are created with O_EXCL (createFilesOnce): the API and the workers may race to make them, one wins.
 * It is the DatabaseCertificates port of @slipway/core (shape-compatible; pki imports nothing of ours).
 */
export class FileDatabaseCertificates {
  private ca: { keyPem: string; certPem: string } | null = null;
  private readonly servers = new Map<string, { certPem: string; keyPem: string }>();

  constructor(private readonly dataDir: string) {}

  async caCertificate(): Promise<string> {
    return (await this.authority()).certPem;
  }

  async serverCertificate(node: { id: string; publicIpv4: string[] }): Promise<{ certPem: string; keyPem: string }> {
    const known = this.servers.get(node.id);
    if (known) return known;
    const dir = path.join(this.dataDir, 'databases-tls', node.id);
    let files = await readFiles(dir, ['server.key', 'server.crt'] as const);
    if (!files) {
      const ca = await this.authority();
      const hosts = [...new Set([...node.publicIpv4.filter((h) => h && h !== '0.0.0.0'), '127.0.0.1', '::1', 'localhost'])];
      const made = issueKeyAndCert(ca, { commonName: `databases.${node.id}.slipway`, usage: 'server', hosts, days: 3650 });
      await createFilesOnce(dir, { 'server.key': made.keyPem, 'server.crt': made.certPem });
      files = await readFiles(dir, ['server.key', 'server.crt'] as const);
      if (!files) throw new Error(`The databases' certificate under ${dir} could not be read back`);
    }
    const tls = { certPem: files['server.crt'], keyPem: files['server.key'] };
    this.servers.set(node.id, tls);
    return tls;
  }

  private async authority(): Promise<{ keyPem: string; certPem: string }> {
    if (this.ca) return this.ca;
    const dir = path.join(this.dataDir, 'databases-ca');
    let files = await readFiles(dir, ['ca.key', 'ca.crt'] as const);
    if (!files) {
      const made = createCertificateAuthority('Slipway databases CA');
      await createFilesOnce(dir, { 'ca.key': made.keyPem, 'ca.crt': made.certPem });
      files = await readFiles(dir, ['ca.key', 'ca.crt'] as const);
      if (!files) throw new Error(`The databases' certificate authority under ${dir} could not be read back`);
    }
    this.ca = { keyPem: files['ca.key'], certPem: files['ca.crt'] };
    return this.ca;
  }
}
