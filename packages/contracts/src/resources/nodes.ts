// Nodes: servers running the agent, and how they join (enrollment).
import { Uuid } from '../common';
import type { Resource } from '../resource';

export const EnrollAgentRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['token', 'csr', 'name', 'grpcAddress', 'publicIpv4', 'cpuMillis', 'memoryMb', 'version'],
  properties: {
    token: { type: 'string', minLength: 8, maxLength: 200, description: 'one-time enrollment token (`slipway-admin enroll-token create`)' },
    csr: { type: 'string', minLength: 100, maxLength: 16384, description: "PEM certificate signing request made with the agent's own key" },
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'node name; joining again under a name replaces its certificate' },
    grpcAddress: { type: 'string', maxLength: 262, pattern: '^[^\\s:]+:\\d{1,5}$', description: 'host:port the control plane dials' },
    publicIpv4: { type: 'array', maxItems: 16, items: { type: 'string', format: 'ipv4' } },
    cpuMillis: { type: 'integer', minimum: 1, maximum: 10_000_000 },
    memoryMb: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
    version: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const;

export const EnrolledAgent = {
  type: 'object',
  additionalProperties: false,
  required: ['nodeId', 'certificate', 'caCertificate'],
  properties: {
    nodeId: Uuid,
    certificate: { type: 'string', description: "the agent's server certificate (PEM), signed by the control plane's CA" },
    caCertificate: { type: 'string', description: "the CA's certificate (PEM): the agent accepts only clients it signed" },
  },
} as const;

export const NODES = {
  tag: { name: 'nodes', description: 'servers running the agent: enrollment' },
  schemas: { EnrollAgentRequest, EnrolledAgent },
  operations: {
    enrollAgent: {
      method: 'post',
      path: '/v1/agent/enroll',
      tag: 'nodes',
      summary: 'Enroll a server: sign its agent CSR with a one-time enrollment token',
      description:
        'Called by `slipway-agent join`. The token is the only credential: unknown, used or expired tokens answer 401. ' +
        'The node is recorded offline and goes online once it answers a health check over mutual TLS.',
      auth: 'public',
      body: EnrollAgentRequest,
      success: { status: 201, description: 'the signed certificate and the CA certificate', schema: EnrolledAgent },
      errors: { 401: ['unauthorized'] },
    },
  },
} as const satisfies Resource;
