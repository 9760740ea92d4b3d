import type { JobQueue } from '@slipway/core';
import { Queue, type JobsOptions } from 'bullmq';
import type Redis from 'ioredis';
import { JOB_CATALOG, JOB_NAMES, QUEUE_NAMES, type JobName, type JobPayloads, type QueueName } from './catalog';
import { assertPayload } from './validate';

// Finished jobs are kept for the operator CLI for a while, then trimmed.
const KEEP_COMPLETED = { age: 24 * 3600, count: 10_000 };
const KEEP_FAILED = { age: 14 * 24 * 3600, count: 50_000 };

export interface QueueSettings {
  connection: Redis;
  /** Key prefix of every queue (config.redis.prefix). */
  prefix: string;
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
      this.queues.set(name, q);
    }
    return q;
  }

  allQueues(): Queue[] {
    return QUEUE_NAMES.map((n) => this.queue(n));
  }

  async enqueue(name: string, payload: Record<string, unknown>, options: { jobId: string; delayMs?: number }): Promise<void> {
    assertPayload(name, payload);
    await this.queue(JOB_CATALOG[name].queue).add(name, payload, jobOptions(name, options));
  }

  /** The typed form: the compiler checks the payload against the job's type. */
  async add<N extends JobName>(name: N, payload: JobPayloads[N], options: { jobId: string; delayMs?: number }): Promise<void> {
    await this.enqueue(name, payload as unknown as Record<string, unknown>, options);
  }

  /** Registers every repeatable job of the catalog (idempotent: a scheduler per job name). */
  async scheduleRepeatable(everyMs: Partial<Record<JobName, number>> = {}): Promise<JobName[]> {
    const scheduled: JobName[] = [];
    for (const name of JOB_NAMES) {
      const every = everyMs[name] ?? JOB_CATALOG[name].everyMs;
      if (!every) continue;
      const { jobId: _ignored, ...opts } = jobOptions(name);
      await this.queue(JOB_CATALOG[name].queue).upsertJobScheduler(name, { every }, { name, data: {}, opts });
      scheduled.push(name);
    }
    return scheduled;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
