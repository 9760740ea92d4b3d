// s3rver (the test S3 server of @slipway/testing/s3) in a child process, so that a benchmark's own process and the
// agent's resident memory are not the server's.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export async function startS3rverChild(dir: string, bucket: string): Promise<{ endpoint: string; pid: number; stop: () => void }> {
  const code = `const S3rver=require('s3rver');new S3rver({address:'127.0.0.1',port:0,silent:true,directory:${JSON.stringify(dir)},configureBuckets:[{name:${JSON.stringify(bucket)}}]}).run().then(a=>console.log(a.port))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'], cwd: join(__dirname, '../../testing') });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (c) => reject(new Error(`s3rver exited ${c}`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill() };
}
