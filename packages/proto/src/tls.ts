import * as grpc from '@grpc/grpc-js';

export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

/** The agent's server side: only clients with a certificate signed by the control plane's CA get in. */
export function agentServerCredentials(tls: TlsMaterial): grpc.ServerCredentials {
  return grpc.ServerCredentials.createSsl(
    Buffer.from(tls.caPem),
    [{ cert_chain: Buffer.from(tls.certPem), private_key: Buffer.from(tls.keyPem) }],
    true,
  );
}

/** The control plane's client side: trusts only its own CA and presents its client certificate. */
export function controlPlaneCredentials(tls: TlsMaterial): grpc.ChannelCredentials {
  return grpc.credentials.createSsl(Buffer.from(tls.caPem), Buffer.from(tls.keyPem), Buffer.from(tls.certPem));
}
