import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type Forge from 'node-forge';

// node-forge (42 modules) is loaded when a certificate is first made or read, not with the package: the agent imports
// @slipway/pki for names and files at every start and makes certificates only when it enrolls or on its first start
// (bench/idle: a few MB of its idle memory). Synchronous like forge itself, so these functions stay synchronous.
let loaded: typeof Forge | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require keeps the functions synchronous
const forge = (): typeof Forge => (loaded ??= require('node-forge') as typeof Forge);
const pki = (): typeof Forge.pki => forge().pki;

export interface KeyAndCert {
  keyPem: string;
  certPem: string;
}

export interface IssuedCertificate {
  certPem: string;
  /** Hex SHA-256 of the DER certificate. */
  fingerprint: string;
  notAfter: Date;
}

/** RSA 2048 through node's native crypto (forge's pure-JS key generation takes seconds). */
export function generateKeyPem(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
}

export function fingerprint(certPem: string): string {
  const der = forge().asn1.toDer(pki().certificateToAsn1(pki().certificateFromPem(certPem))).getBytes();
  return createHash('sha256').update(Buffer.from(der, 'binary')).digest('hex');
}

export function certificateNotAfter(certPem: string): Date {
  return pki().certificateFromPem(certPem).validity.notAfter;
}

/** The self-signed certificate authority of the control plane. */
export function createCertificateAuthority(commonName = 'Slipway control plane CA', years = 10): KeyAndCert {
  const keyPem = generateKeyPem();
  const key = pki().privateKeyFromPem(keyPem);
  const cert = pki().createCertificate();
  cert.publicKey = pki().setRsaPublicKey(key.n, key.e);
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + years * 365 * 86_400_000);
  const subject = [{ name: 'commonName', value: commonName }, { name: 'organizationName', value: 'Slipway' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true, pathLenConstraint: 0 },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge().md.sha256.create());
  return { keyPem, certPem: pki().certificateToPem(cert) };
}

/** A key and a certificate signing request, made where the key will live (the agent's server). */
export function createKeyAndCsr(commonName: string): { keyPem: string; csrPem: string } {
  const keyPem = generateKeyPem();
  const key = pki().privateKeyFromPem(keyPem);
  const csr = pki().createCertificationRequest();
  csr.publicKey = pki().setRsaPublicKey(key.n, key.e);
  csr.setSubject([{ name: 'commonName', value: commonName }]);
  csr.sign(key, forge().md.sha256.create());
  return { keyPem, csrPem: pki().certificationRequestToPem(csr) };
}

export class CsrError extends Error {}

export interface IssueOptions {
  commonName: string;
  /** serverAuth for agents, clientAuth for the control plane: an agent's certificate can never call another agent. */
  usage: 'server' | 'client';
  /** DNS names and IP addresses for the subjectAltName. */
  hosts?: string[];
  days?: number;
}

/**
 * Signs a CSR with the CA. Only the CSR's public key is used: the subject and extensions come from
 * the control plane, so an agent cannot ask for a name or a usage it was not given.
 */
export function signCsr(ca: KeyAndCert, csrPem: string, options: IssueOptions): IssuedCertificate {
  let csr: Forge.pki.CertificateSigningRequest;
  try {
    csr = pki().certificationRequestFromPem(csrPem);
  } catch {
    throw new CsrError('The certificate signing request is not a PEM-encoded RSA CSR');
  }
  let valid = false;
  try {
    valid = csr.verify();
  } catch {
    valid = false;
  }
  if (!valid) throw new CsrError('The certificate signing request is not signed by its own key');
  if (!csr.publicKey) throw new CsrError('The certificate signing request has no public key');
  return issue(ca, csr.publicKey as Forge.pki.rsa.PublicKey, options);
}

/** A key and certificate made by the CA itself (the control plane's client certificate). */
export function issueKeyAndCert(ca: KeyAndCert, options: IssueOptions): KeyAndCert {
  const keyPem = generateKeyPem();
  const key = pki().privateKeyFromPem(keyPem);
  const { certPem } = issue(ca, pki().setRsaPublicKey(key.n, key.e), options);
  return { keyPem, certPem };
}

function issue(ca: KeyAndCert, publicKey: Forge.pki.rsa.PublicKey, options: IssueOptions): IssuedCertificate {
  const caCert = pki().certificateFromPem(ca.certPem);
  const caKey = pki().privateKeyFromPem(ca.keyPem);
  const cert = pki().createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + (options.days ?? 825) * 86_400_000);
  cert.setSubject([
    { name: 'commonName', value: options.commonName },
    { name: 'organizationName', value: 'Slipway' },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  const altNames = (options.hosts ?? []).map((h) => (isIP(h) ? { type: 7, ip: h } : { type: 2, value: h }));
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: options.usage === 'server', clientAuth: options.usage === 'client' },
    ...(altNames.length ? [{ name: 'subjectAltName', altNames }] : []),
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge().md.sha256.create());
  const certPem = pki().certificateToPem(cert);
  return { certPem, fingerprint: fingerprint(certPem), notAfter: cert.validity.notAfter };
}

// Positive 16-byte serial (a leading 0 nibble keeps it positive in DER).
function serial(): string {
  return `0${randomBytes(16).toString('hex').slice(1)}`;
}
