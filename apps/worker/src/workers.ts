import { AppError, dependencyWarnings, isTransient, type Logger } from '@slipway/core';
import { assertPayload, InvalidPayloadError, JOB_CATALOG, QUEUE_NAMES, jobsOfQueue, type JobName } from '@slipway/queue';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type Redis from 'ioredis';
import type { Processor, Processors } from './processors';

export interface WorkerPoolOptions {
  connection: Redis;
  prefix: string;
  processors: Processors;
  concurrency: number;
  /**
   * Lock of a running job, renewed every half of it. A worker that dies stops renewing: the lock expires and the
   * stalled-job check (every half lock) puts the job back in the queue. From a SIGKILL to the job running again:
   * at most about 1.5 × lockMs (15 s with the default 10 s).
   */
  lockMs: number;
  logger: Logger;
  /** Called once a job will not be tried again (last try failed, bad payload, stalled too often). */
  onFailedForGood?: (job: Job, reason: string) => Promise<void>;
}

export interface WorkerPool {
  workers: Worker[];
  /** Graceful: stops taking jobs and waits for the running ones. */
  close(): Promise<void>;
}

/** One BullMQ Worker per queue of the catalog, each dispatching by job name to its processor. */
export function runWorkers(o: WorkerPoolOptions): WorkerPool {
  const workers = QUEUE_NAMES.filter((q) => jobsOfQueue(q).length > 0).map((queue) => {
    const worker = new Worker(queue, (job) => dispatch(job, o), {
      connection: o.connection,
      prefix: o.prefix,
      concurrency: o.concurrency,
      lockDuration: o.lockMs,
      stalledInterval: Math.max(1_000, Math.floor(o.lockMs / 2)),
      maxStalledCount: 2,
    });
    worker.on('failed', (job, err) => {
      if (!job) return;
      void (async () => {
        const state = await job.getState().catch(() => 'unknown');
        if (state !== 'failed') return;
        o.logger.error({ jobId: job.id, name: job.name, err: err.message }, 'job failed for good');
        await o.onFailedForGood?.(job, err.message);
      })().catch((e: Error) => o.logger.error({ jobId: job.id, err: e.message }, 'could not record a failed job'));
    });
    // While Redis restarts every connection reports errors until it is back: a few lines, not one per attempt.
    worker.on('error', dependencyWarnings(o.logger.child({ queue }), 'redis'));
    return worker;
  });
  return {
    workers,
    close: async () => {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

async function dispatch(job: Job, o: WorkerPoolOptions): Promise<unknown> {
  try {
    assertPayload(job.name, job.data);
  } catch (e) {
    // A payload that does not fit its schema never will: fail now, without retries.
    if (e instanceof InvalidPayloadError) throw new UnrecoverableError(e.message);
    throw e;
  }
  const name = job.name as JobName;
  const processor = o.processors[name] as Processor<typeof name>;
  const tries = job.opts.attempts ?? JOB_CATALOG[name].attempts;
  const attempt = { number: job.attemptsMade + 1, final: job.attemptsMade + 1 >= tries };
  try {
    return await processor(job.data, { jobId: job.id!, attempt, log: async (line) => void (await job.log(line)) });
  } catch (e) {
    await job.log(`try ${attempt.number} of ${tries} failed: ${(e as Error).message}`).catch(() => undefined);
    if (e instanceof AppError && !isTransient(e)) throw new UnrecoverableError(e.message);
    throw e;
  }
}
