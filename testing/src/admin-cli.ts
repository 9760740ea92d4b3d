// The operator CLI `slipway-admin` run as an operator runs it: its own process, the control plane's environment, exit
// code and output kept (never thrown), so a spec can assert a refusal's words as well as a success.
import { spawn } from 'node:child_process';
import path from 'node:path';

export const ADMIN_BIN = path.resolve(__dirname, '../../apps/cli/bin/slipway-admin');

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `argv[0]` with the rest as its arguments; resolves with its exit code and output, whatever the code. */
export function runProcess(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<AdminRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/**
 * `admin(...args)` runs slipway-admin with `env` over this process's environment; `adminJson(...args)` adds `--json`
 * and parses its output (its shape is the spec's own assertions), throwing with the command's own words when it
 * exits non-zero or writes to stderr.
 */
export function adminCli(env: Record<string, string>) {
  const admin = (...args: string[]) => runProcess([ADMIN_BIN, ...args], { ...process.env, ...env });
  const adminJson = async (...args: string[]) => {
    const r = await admin(...args, '--json');
    if (r.code !== 0 || r.stderr !== '') throw new Error(`slipway-admin ${args.join(' ')} --json exited ${r.code}: ${r.stderr.trim()}`);
    return JSON.parse(r.stdout);
  };
  return { admin, adminJson };
}
