import { AppError, type AgentCertificateSigner } from '@slipway/core';
import { CertificateAuthority } from '@slipway/pki';

/**
 * The control plane's CA as enrollment needs it, opened (or created) under `<dataDir>/ca` on first use.
 * Without a data dir (unit-level wiring, contract tests) enrollment answers 500 and nothing is signed.
 */
export function certificateAuthorityOf(dataDir: string | undefined): AgentCertificateSigner & { open(): Promise<CertificateAuthority> } {
  let opening: Promise<CertificateAuthority> | null = null;
  const open = (): Promise<CertificateAuthority> => {
    if (!dataDir) return Promise.reject(new AppError('internal', 'The control plane has no data directory for its certificate authority'));
    const p =
      opening ??
      CertificateAuthority.open(dataDir).catch((e: unknown) => {
        opening = null;
        throw e;
      });
    opening = p;
    return p;
  };
  return {
    open,
    caCertificate: async () => (await open()).certPem,
    signAgentCsr: async (csrPem, nodeName, hosts) => (await open()).signAgentCsr(csrPem, nodeName, hosts),
  };
}
