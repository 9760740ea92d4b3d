// Issue 33: the destination test call from the server that uploads — Backups.ProbeDestination on a real agent over
// mutual TLS, against the test S3 server that checks SigV4 signatures: a right key writes, reads back and deletes its
// probe object; a wrong secret is said in words; the secret is in neither the answer nor the agent's log.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { CertificateAuthority } from '@slipway/pki';
import { AgentPool, BackupsPool } from '@slipway/proto';
import { openTestCa, startTestAgent, type TestAgent } from '@slipway/testing/agent';
import { startTestS3, type TestS3 } from '@slipway/testing/s3';
import pino from 'pino';

jest.setTimeout(120_000);

describe('Backups.ProbeDestination on a real agent', () => {
  const KEY_ID = 'AKIAAGENTPROBE';
  const SECRET = `agent-probe-${randomUUID()}`;
  const logs: string[] = [];
  let ca: CertificateAuthority;
  let caDir: string;
  let t: TestAgent;
  let agents: AgentPool;
  let backups: BackupsPool;
  let s3: TestS3;

  beforeAll(async () => {
    ({ ca, dir: caDir } = await openTestCa());
    s3 = await startTestS3({ buckets: ['backups'], credentials: { [KEY_ID]: SECRET } });
    t = await startTestAgent(ca, { logger: pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) }) });
    agents = new AgentPool(ca.client);
    backups = new BackupsPool(agents);
  });

  afterAll(async () => {
    agents?.close();
    await t?.stop();
    await s3?.close();
    await rm(caDir, { recursive: true, force: true });
  });

  const destination = (secretAccessKey: string) => ({ endpoint: s3.endpoint, region: 'us-east-1', bucket: 'backups', prefix: 'slipway/', pathStyle: true, accessKeyId: KEY_ID, secretAccessKey });

  it('writes, reads back and deletes a probe object from the server', async () => {
    const r = await backups.probeDestination(t.target, destination(SECRET));
    expect(r).toEqual({ ok: true, stage: null, reason: null, message: expect.stringMatching(/^A probe object was written to backups\/slipway\/\.slipway-probe-[0-9a-f]+, read back intact and deleted\.$/), elapsedMs: expect.any(Number) });
    expect([...(await s3.objects('backups')).keys()]).toEqual([]);
  });

  it('says a wrong secret in words, and keeps the secret out of the answer and the log', async () => {
    const wrong = `wrong-${randomUUID()}`;
    const r = await backups.probeDestination(t.target, destination(wrong));
    expect(r).toMatchObject({ ok: false, stage: 'write', reason: 'credentials', message: expect.stringMatching(/^Writing a probe object failed\. The storage refused the credentials \(SignatureDoesNotMatch\)/) });
    expect(s3.refusals('SignatureDoesNotMatch')).toBe(1);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.filter((l) => l.includes(wrong))).toEqual([]);
    expect(logs.filter((l) => l.includes(SECRET))).toEqual([]);
    expect(JSON.stringify(r)).not.toContain(wrong);
  });
});
