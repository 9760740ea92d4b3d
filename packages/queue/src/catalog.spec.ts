import { JOB_CATALOG, JOB_NAMES, QUEUE_NAMES, jobsOfQueue } from './catalog';
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
});
