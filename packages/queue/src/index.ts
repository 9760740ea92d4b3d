export * from './catalog';
export { createRedisConnection, isRedisUnavailable, type RedisConnectionOptions } from './connection';
export { BullJobQueue, jobOptions, type QueueSettings } from './job-queue';
export { assertPayload, InvalidPayloadError } from './validate';
