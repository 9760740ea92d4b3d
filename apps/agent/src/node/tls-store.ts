import { createHash, X509Certificate } from 'node:crypto';
import path from 'node:path';
import { createFilesOnce, readFiles } from '@slipway/pki';
import type { TlsMaterial } from '@slipway/proto';

/** What `join` leaves under `<dataDir>/tls`: the agent's key (made here, never sent), its certificate and the CA's. */
export interface Enrollment extends TlsMaterial {
  nodeId: string;
  nodeName: string;
  controlPlaneUrl: string;
}

const FILES = ['agent.key', 'agent.crt', 'ca.crt', 'node.json'] as const;

export const tlsDir = (dataDir: string): string => path.join(dataDir, 'tls');

export async function readEnrollment(dataDir: string): Promise<Enrollment | null> {
  const files = await readFiles(tlsDir(dataDir), FILES);
  if (!files) return null;
  const node = JSON.parse(files['node.json']) as { nodeId: string; nodeName: string; controlPlaneUrl: string };
  return { ...node, keyPem: files['agent.key'], certPem: files['agent.crt'], caPem: files['ca.crt'] };
}

/** Writes all four files at once (0600 in a 0700 folder); false when an enrollment is already there. */
export function saveEnrollment(dataDir: string, e: Enrollment): Promise<boolean> {
  return createFilesOnce(tlsDir(dataDir), {
    'agent.key': e.keyPem,
    'agent.crt': e.certPem,
    'ca.crt': e.caPem,
    'node.json': `${JSON.stringify({ nodeId: e.nodeId, nodeName: e.nodeName, controlPlaneUrl: e.controlPlaneUrl }, null, 2)}\n`,
  });
}

/**
 * This platform's identity when SLIPWAY_PLATFORM_ID is not set: a digest of the control plane's CA certificate, made
 * at the control plane's setup. Two platforms (or two test runs) never share a CA, so they never share an id, and every
 * agent of one platform derives the same one.
 */
export function platformIdOf(e: Pick<Enrollment, 'caPem'>): string {
  return `ca-${createHash('sha256').update(new X509Certificate(e.caPem).raw).digest('hex').slice(0, 20)}`;
}
