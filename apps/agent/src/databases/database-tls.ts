import path from 'node:path';
import { createCertificateAuthority, createFilesOnce, issueKeyAndCert, readFiles } from '@slipway/pki';

/** The TLS material databases serve when the control plane sends no certificate of its own. */
export interface DatabaseTlsMaterial {
  certPem: string;
  keyPem: string;
  caPem: string;
}

const FILES = ['ca.key', 'ca.crt', 'server.key', 'server.crt'] as const;

/**
 * The agent's own certificate authority for its databases, under `<data dir>/database-tls` (0600 files in a 0700
 * folder), made on first use, and the one server certificate it issues (SANs: the server's public addresses, the host
 * it is reached at, 127.0.0.1 and ::1). Never the agent's enrollment key: a database superuser can read the key its
 * engine serves (`pg_read_file`), and that key must be worth no more than this server's public database ports.
 * `GetDatabaseCa` answers this CA. The control plane may send a certificate of its own in `EnsureDatabaseRequest.tls`
 * instead (its database CA, the same pair every time).
 */
export async function openDatabaseTls(dataDir: string, hosts: string[]): Promise<DatabaseTlsMaterial> {
  const dir = path.join(dataDir, 'database-tls');
  let files = await readFiles(dir, FILES);
  if (!files) {
    const ca = createCertificateAuthority('Slipway databases CA (agent)');
    const names = [...new Set([...hosts.filter((h) => h && h !== '0.0.0.0' && h !== '::'), '127.0.0.1', '::1', 'localhost'])];
    const server = issueKeyAndCert(ca, { commonName: names[0]!, usage: 'server', hosts: names, days: 3650 });
    await createFilesOnce(dir, { 'ca.key': ca.keyPem, 'ca.crt': ca.certPem, 'server.key': server.keyPem, 'server.crt': server.certPem });
    files = await readFiles(dir, FILES);
    if (!files) throw new Error(`The databases' TLS material under ${dir} could not be read back`);
  }
  return { certPem: files['server.crt'], keyPem: files['server.key'], caPem: files['ca.crt'] };
}
