import { randomBytes } from 'node:crypto';
import type { Db } from '@slipway/db';
import type { ApiClient } from './api-client';

const unique = () => randomBytes(4).toString('hex');

export const uniqueEmail = (prefix = 'user') => `${prefix}-${unique()}@example.test`;

/** A row in `nodes` as if an agent had enrolled and answered its health check. */
export async function insertNode(
  db: Db,
  overrides: Partial<{ name: string; cpuMillis: number; memoryMb: number; status: string }> = {},
): Promise<{ id: string; name: string }> {
  return db.node.create({
    data: {
      name: overrides.name ?? `node-${unique()}`,
      grpcAddress: '127.0.0.1:7443',
      publicIpv4: ['127.0.0.1'],
      cpuMillis: overrides.cpuMillis ?? 4000,
      memoryMb: overrides.memoryMb ?? 8192,
      version: 'test',
      certFingerprint: randomBytes(32).toString('hex'),
      certNotAfter: new Date(Date.now() + 365 * 24 * 3600 * 1000),
      status: overrides.status ?? 'online',
      lastSeenAt: new Date(),
    },
    select: { id: true, name: true },
  });
}

export interface SignedUp {
  user: { id: string; email: string; name: string; createdAt: string };
  email: string;
  password: string;
}

/** Signs up through the API; the client keeps the session cookie. */
export async function signUp(client: ApiClient, overrides: Partial<{ email: string; password: string; name: string }> = {}): Promise<SignedUp> {
  const email = overrides.email ?? uniqueEmail();
  const password = overrides.password ?? `pw-${unique()}-long-enough`;
  const res = await client.post('/v1/auth/signup', { email, password, name: overrides.name ?? 'Test User' });
  if (res.status !== 201) throw new Error(`signup answered ${res.status}: ${res.text}`);
  return { user: res.body.user, email, password };
}

/** Creates a workspace through the API with the client's session (a node must be online). */
export async function createWorkspace(client: ApiClient, name = `Workspace ${unique()}`): Promise<{ id: string; name: string; slug: string; role: string }> {
  const res = await client.post('/v1/workspaces', { name });
  if (res.status !== 201) throw new Error(`workspace creation answered ${res.status}: ${res.text}`);
  return res.body;
}

/** The JobQueue port, recording instead of queueing: tests run the job's service themselves. */
export class RecordingJobQueue {
  readonly jobs: { name: string; payload: Record<string, unknown>; options: { jobId: string; delayMs?: number } }[] = [];

  async enqueue(name: string, payload: Record<string, unknown>, options: { jobId: string; delayMs?: number }): Promise<void> {
    this.jobs.push({ name, payload, options });
  }
}
