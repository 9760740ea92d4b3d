import { OPERATION_JOBS } from '@slipway/core';
import { JOB_CATALOG, JOB_NAMES, QUEUE_NAMES, jobsOfQueue, ownerOf } from './catalog';
import { jobOptions } from './job-queue';
import { assertPayload, InvalidPayloadError } from './validate';

describe('job catalog', () => {
  it('names every job domain.verb and puts it on a known queue', () => {
    for (const name of JOB_NAMES) {
      expect(name).toMatch(/^[a-z]+\.[a-z][a-z-]*$/);
      expect(QUEUE_NAMES).toContain(JOB_CATALOG[name].queue);
      expect(JOB_CATALOG[name].attempts).toBeGreaterThanOrEqual(1);
    }
    expect(QUEUE_NAMES.flatMap(jobsOfQueue).sort()).toEqual([...JOB_NAMES].sort());
  });

  it('accepts good payloads and refuses bad ones with the reason', () => {
    expect(() => assertPayload('agent.noop', { operationId: '0190f0a0-0000-7000-8000-000000000001' })).not.toThrow();
    expect(() => assertPayload('node.check-health', {})).not.toThrow();
    const bad = [
      ['agent.noop', {}],
      ['agent.noop', { operationId: 'nope' }],
      ['agent.noop', { operationId: '0190f0a0-0000-7000-8000-000000000001', extra: 1 }],
      ['reconcile.run', { anything: true }],
      ['no.such-job', {}],
    ] as const;
    for (const [name, payload] of bad) expect(() => assertPayload(name, payload)).toThrow(InvalidPayloadError);
  });

  it('turns an entry into BullMQ options with the row id as job id', () => {
    expect(jobOptions('agent.noop', { jobId: 'row-1', delayMs: 5 })).toMatchObject({
      jobId: 'row-1',
      delay: 5,
      attempts: 5,
      backoff: { type: 'exponential', delay: 500 },
    });
    expect(jobOptions('reconcile.run')).not.toHaveProperty('jobId');
  });

  it('names the row each job owns, and operation jobs carry the operation id alone', () => {
    const id = '0190f0a0-0000-7000-8000-000000000001';
    expect(JOB_NAMES.filter((n) => JOB_CATALOG[n].owner === 'operation').sort()).toEqual([...OPERATION_JOBS].sort());
    for (const name of OPERATION_JOBS) {
      expect(() => assertPayload(name, { operationId: id })).not.toThrow();
      expect(() => assertPayload(name, { operationId: id, appId: id })).toThrow(InvalidPayloadError);
      expect(ownerOf(name, { operationId: id })).toEqual({ owner: 'operation', id });
    }
    expect(ownerOf('deployment.run', { deploymentId: id })).toEqual({ owner: 'deployment', id });
    expect(ownerOf('backup.run', { backupId: id })).toEqual({ owner: 'backup', id });
    expect(ownerOf('backup.restore', { restoreId: 'r', backupId: 'b', databaseId: id, target: 'new' })).toEqual({ owner: 'restore', id });
    expect(ownerOf('reconcile.run', {})).toBeNull();
  });

  it('gives repeatable jobs a schedule and no owner', () => {
    const scheduled = JOB_NAMES.filter((name) => JOB_CATALOG[name].schedule);
    expect(scheduled.map((name) => [name, JOB_CATALOG[name].owner])).toEqual(scheduled.map((name) => [name, 'none']));
    expect(scheduled).toContain('plan.suspend-expired');
    expect(JOB_CATALOG['plan.suspend-expired'].schedule).toEqual({ every: 10 * 60 * 1000 });
  });
});
