export { CertificateAuthority, CONTROL_PLANE_CLIENT_NAME, agentTlsName, type ClientTls } from './authority';
export { createFilesOnce, readFiles } from './files';
export {
  certificateNotAfter,
  createCertificateAuthority,
  createKeyAndCsr,
  CsrError,
  fingerprint,
  issueKeyAndCert,
  signCsr,
  type IssuedCertificate,
  type KeyAndCert,
} from './x509';
export { FileDatabaseCertificates } from './database-certificates';
