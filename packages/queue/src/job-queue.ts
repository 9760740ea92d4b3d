import type { JobQueue } from '@slipway/core';
import { Queue, type JobsOptions } from 'bullmq';
import type Redis from 'ioredis';
import { JOB_CATALOG, JOB_NAMES, QUEUE_NAMES, type JobName, type JobPayloads, type JobSchedule, type QueueName } from './catalog';
import { assertPayload } from './validate';

// Finished jobs are kept for the operator CLI for a while, then trimmed.
const KEEP_COMPLETED = { age: 24 * 3600, count: 10_000 };
const KEEP_FAILED = { age: 14 * 24 * 3600, count: 50_000 };

export interface QueueSettings {
  connection: Redis;
  /** Key prefix of every queue (config.redis.prefix). */
  prefix: string;
  /**
   * Connection errors of the queues (Redis restarting). Without a listener BullMQ prints each one to stderr; the
   * connection reconnects either way.
   */
  onError?: (err: Error) => void;
}

/** The BullMQ options of one job from its catalog entry. */
export function jobOptions(name: JobName, options: { jobId?: string; delayMs?: number } = {}): JobsOptions {
  const def = JOB_CATALOG[name];
  return {
    ...(options.jobId ? { jobId: options.jobId } : {}),
    ...(options.delayMs ? { delay: options.delayMs } : {}),
    attempts: def.attempts,
    ...(def.backoff ? { backoff: def.backoff } : {}),
    removeOnComplete: KEEP_COMPLETED,
    removeOnFail: KEEP_FAILED,
  };
}

/**
 * Typed enqueue over the catalog; implements the JobQueue port of @slipway/core. The payload is checked
 * against its schema before it reaches Redis, so a bad payload fails where it was made.
 */
export class BullJobQueue implements JobQueue {
  private readonly queues = new Map<QueueName, Queue>();

  constructor(private readonly settings: QueueSettings) {}

  queue(name: QueueName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.settings.connection, prefix: this.settings.prefix });
      q.on('error', (err: Error) => this.settings.onError?.(err));
      this.queues.set(name, q);
    }
    return q;
  }

  allQueues(): Queue[] {
    return QUEUE_NAMES.map((n) => this.queue(n));
  }

  /** Checks the payload against its schema (a bad one fails where it was made) and adds the job with the catalog's options. */
  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N], options: { jobId: string; delayMs?: number }): Promise<void> {
    assertPayload(name, payload);
    await this.queue(JOB_CATALOG[name].queue).add(name, payload, jobOptions(name, options));
  }

  /** The same as `enqueue` (the name tests and the CLI use). */
  add<N extends JobName>(name: N, payload: JobPayloads[N], options: { jobId: string; delayMs?: number }): Promise<void> {
    return this.enqueue(name, payload, options);
  }

  /**
   * Registers a BullMQ job scheduler for every job of the catalog with a schedule (idempotent: one scheduler per job
   * name, `upsertJobScheduler`); `overrides` replace the catalog's schedule (the worker's settings).
   */
  async scheduleRepeatable(overrides: Partial<Record<JobName, JobSchedule>> = {}): Promise<JobName[]> {
    const scheduled: JobName[] = [];
    for (const name of JOB_NAMES) {
      const schedule = overrides[name] ?? JOB_CATALOG[name].schedule;
      if (!schedule) continue;
      const { jobId: _ignored, ...opts } = jobOptions(name);
      const repeat = 'every' in schedule ? { every: schedule.every } : { pattern: schedule.pattern, tz: 'UTC' };
      await this.queue(JOB_CATALOG[name].queue).upsertJobScheduler(name, repeat, { name, data: {}, opts });
      scheduled.push(name);
    }
    return scheduled;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
