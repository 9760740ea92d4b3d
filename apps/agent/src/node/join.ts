import { agentTlsName, createKeyAndCsr } from '@slipway/pki';
import { AGENT_VERSION, capacity, type OfferedCapacity } from './node-info';
import { readEnrollment, saveEnrollment } from './tls-store';

export interface JoinOptions {
  url: string;
  token: string;
  dataDir: string;
  nodeName: string;
  advertiseAddress: string;
  publicIpv4: string[];
  /** What the operator offers of this server (default: the whole machine). */
  capacity?: OfferedCapacity;
}

export type JoinResult = { status: 'joined'; nodeId: string } | { status: 'already-enrolled'; nodeId: string };

export class JoinError extends Error {}

/**
 * Enrolls this server: makes a key and a CSR here, sends the CSR with the one-time token, and keeps
 * the signed certificate and the CA's. The key never leaves this machine. A second join with an
 * enrollment already on disk changes nothing.
 */
export async function join(o: JoinOptions): Promise<JoinResult> {
  const existing = await readEnrollment(o.dataDir);
  if (existing) return { status: 'already-enrolled', nodeId: existing.nodeId };

  const { keyPem, csrPem } = createKeyAndCsr(agentTlsName(o.nodeName));
  const url = `${o.url.replace(/\/+$/, '')}/v1/agent/enroll`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: o.token,
        csr: csrPem,
        name: o.nodeName,
        grpcAddress: o.advertiseAddress,
        publicIpv4: o.publicIpv4,
        ...capacity(o.capacity),
        version: AGENT_VERSION,
      }),
    });
  } catch (e) {
    throw new JoinError(`The control plane at ${o.url} is not reachable: ${(e as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as {
    nodeId?: string;
    certificate?: string;
    caCertificate?: string;
    error?: { code: string; message: string };
  };
  if (!res.ok || !body.nodeId || !body.certificate || !body.caCertificate) {
    throw new JoinError(`Enrollment refused (${res.status} ${body.error?.code ?? ''}): ${body.error?.message ?? 'no certificate in the answer'}`);
  }
  await saveEnrollment(o.dataDir, {
    nodeId: body.nodeId,
    nodeName: o.nodeName,
    controlPlaneUrl: o.url,
    keyPem,
    certPem: body.certificate,
    caPem: body.caCertificate,
  });
  return { status: 'joined', nodeId: body.nodeId };
}
