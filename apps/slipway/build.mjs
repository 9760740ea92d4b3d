// Builds the publishable `slipway` CLI: one JavaScript file (dist/slipway.js) with every dependency bundled, whose
// only requirement is Node >= 20. Run by deploy/build.mjs (setup) and by `pnpm --filter @slipway/cli build`.
import { build } from 'esbuild';
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';

const HERE = import.meta.dirname;
export const OUTFILE = path.join(HERE, 'dist', 'slipway.js');

export async function buildCli() {
  await build({
    entryPoints: [path.join(HERE, 'src', 'main.ts')],
    outfile: OUTFILE,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: false,
    legalComments: 'eof',
    logLevel: 'warning',
    banner: { js: '#!/usr/bin/env node' },
  });
  await chmod(OUTFILE, 0o755);
  return OUTFILE;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const started = Date.now();
  await buildCli();
  process.stdout.write(`built ${path.relative(process.cwd(), OUTFILE)} in ${Date.now() - started} ms\n`);
}
