export * from './catalog';
export { createRedisConnection } from './connection';
export { BullJobQueue, jobOptions, type QueueSettings } from './job-queue';
export { assertPayload, InvalidPayloadError } from './validate';
