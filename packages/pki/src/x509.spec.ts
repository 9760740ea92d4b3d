import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority, createKeyAndCsr, CsrError, fingerprint, issueKeyAndCert, signCsr } from './x509';

/** Another base64 character than `c`. */
const flipped = (c: string) => (c === 'A' ? 'B' : 'A');

describe('x509', () => {
  const ca = createCertificateAuthority('Test CA');
  const other = createCertificateAuthority('Other CA');

  it('signs a CSR with the name, hosts and usage the CA chooses', () => {
    const { csrPem } = createKeyAndCsr('whatever-the-agent-asks');
    const issued = signCsr(ca, csrPem, { commonName: 'n1.agent.slipway', usage: 'server', hosts: ['n1.agent.slipway', '127.0.0.1'] });
    const cert = new X509Certificate(issued.certPem);
    const caCert = new X509Certificate(ca.certPem);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.verify(new X509Certificate(other.certPem).publicKey)).toBe(false);
    expect(cert.subject).toContain('CN=n1.agent.slipway');
    expect(cert.subjectAltName).toContain('DNS:n1.agent.slipway');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth only
    expect(cert.ca).toBe(false);
    expect(issued.fingerprint).toBe(fingerprint(issued.certPem));
    expect(issued.fingerprint).toBe(cert.fingerprint256.replace(/:/g, '').toLowerCase());
    expect(issued.notAfter.getTime()).toBeGreaterThan(Date.now() + 365 * 86_400_000);
  });

  it('makes client certificates with client usage only', () => {
    const { certPem } = issueKeyAndCert(ca, { commonName: 'slipway-control-plane', usage: 'client' });
    expect(new X509Certificate(certPem).keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
  });

  it('marks the CA as a CA', () => {
    expect(new X509Certificate(ca.certPem).ca).toBe(true);
  });

  it('refuses garbage and tampered CSRs', () => {
    expect(() => signCsr(ca, 'not a csr', { commonName: 'x', usage: 'server' })).toThrow(CsrError);
    const { csrPem } = createKeyAndCsr('a');
    const body = csrPem.split('\n');
    // Flip one character inside the signed part.
    const line = body[3]!;
    body[3] = `${line.slice(0, 10)}${flipped(line[10]!)}${line.slice(11)}`;
    expect(() => signCsr(ca, body.join('\n'), { commonName: 'x', usage: 'server' })).toThrow(CsrError);
  });
});
