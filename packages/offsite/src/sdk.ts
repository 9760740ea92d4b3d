import type * as S3 from '@aws-sdk/client-s3';

// The S3 SDK (~10 MB of a process's memory once loaded) is loaded on the first client made, not with the package: the
// agent, the worker and the API import @slipway/offsite at start and most of them never talk to a destination
// (bench/idle). Synchronous, so the functions that make clients and commands stay as they were.
let loaded: typeof S3 | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require keeps s3Client() synchronous
export const s3 = (): typeof S3 => (loaded ??= require('@aws-sdk/client-s3') as typeof S3);
