import path from 'node:path';
import { createFilesOnce, readFiles } from './files';
import { createCertificateAuthority, issueKeyAndCert, signCsr, type IssuedCertificate, type KeyAndCert } from './x509';

/** The TLS material a control-plane process (API, worker) uses to call agents. */
export interface ClientTls {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export const CONTROL_PLANE_CLIENT_NAME = 'slipway-control-plane';

/** The name every agent certificate carries, whatever address it is reached at. */
export const agentTlsName = (nodeName: string): string => `${nodeName}.agent.slipway`;

/**
 * The control plane's certificate authority under `<dataDir>/ca` (ca.key 0600, ca.crt), created on
 * first use, and its client certificate under `<dataDir>/control-tls`. The CA signs agents' server
 * certificates at enrollment; its key never leaves this machine.
 */
export class CertificateAuthority {
  private constructor(
    private readonly ca: KeyAndCert,
    readonly client: ClientTls,
  ) {}

  static async open(dataDir: string): Promise<CertificateAuthority> {
    const caDir = path.join(dataDir, 'ca');
    let ca = await readCa(caDir);
    if (!ca) {
      const made = createCertificateAuthority();
      await createFilesOnce(caDir, { 'ca.key': made.keyPem, 'ca.crt': made.certPem });
      ca = await readCa(caDir);
      if (!ca) throw new Error(`The certificate authority under ${caDir} could not be read back`);
    }
    const clientDir = path.join(dataDir, 'control-tls');
    let client = await readFiles(clientDir, ['client.key', 'client.crt'] as const);
    if (!client) {
      const made = issueKeyAndCert(ca, { commonName: CONTROL_PLANE_CLIENT_NAME, usage: 'client', days: 3650 });
      await createFilesOnce(clientDir, { 'client.key': made.keyPem, 'client.crt': made.certPem });
      client = await readFiles(clientDir, ['client.key', 'client.crt'] as const);
      if (!client) throw new Error(`The client certificate under ${clientDir} could not be read back`);
    }
    return new CertificateAuthority(ca, { caPem: ca.certPem, certPem: client['client.crt'], keyPem: client['client.key'] });
  }

  get certPem(): string {
    return this.ca.certPem;
  }

  /** Signs an agent's CSR: server usage only, named `<node>.agent.slipway` plus the host it is reached at. */
  signAgentCsr(csrPem: string, nodeName: string, hosts: string[]): IssuedCertificate {
    const names = [agentTlsName(nodeName), ...hosts.filter((h) => h && h !== '0.0.0.0' && h !== '::')];
    return signCsr(this.ca, csrPem, { commonName: agentTlsName(nodeName), usage: 'server', hosts: [...new Set(names)] });
  }
}

async function readCa(dir: string): Promise<KeyAndCert | null> {
  const files = await readFiles(dir, ['ca.key', 'ca.crt'] as const);
  return files ? { keyPem: files['ca.key'], certPem: files['ca.crt'] } : null;
}
