// The benchmark's storage: the test S3 server of @slipway/testing/s3 (s3rver behind its front, which checks SigV4
// signatures and payload hashes and keeps S3's SHA-256 checksums) in a process of its own, so that its CPU and memory
// are not the agent's or the benchmark's. Prints its endpoint, then its pid; stops (its folder removed) on SIGTERM.
//   node --import tsx bench/backups/test-s3.ts BUCKET [keep|ignore]
import { startTestS3 } from '@slipway/testing/s3';

const [bucket = 'bench', checksums = 'keep'] = process.argv.slice(2);
if (checksums !== 'keep' && checksums !== 'ignore') throw new Error('checksums: keep or ignore');
void startTestS3({ buckets: [bucket], checksums }).then((s3) => {
  console.log(s3.endpoint);
  process.once('SIGTERM', () => void s3.close().finally(() => process.exit(0)));
});
