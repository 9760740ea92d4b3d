// Small re-exports for the contract unit test, which must not need PostgreSQL or Redis.
export { ERROR_CODES, isPermission } from '@slipway/core';
export { RecordingJobQueue as RecordingJobs } from '@slipway/testing';
