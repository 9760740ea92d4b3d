// Writes src/generated/api.d.ts from the contracts' OpenAPI document (see src/render-types.ts); with --check, only
// says whether the committed file is current (exit 1 when stale). openapi-typescript loads an ES module (Redocly's
// core) that jest cannot require, so render-types.spec.ts runs this script as a process.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_TYPES_PATH, renderApiTypes } from '../src/render-types';

const target = join(__dirname, '..', GENERATED_TYPES_PATH);
void renderApiTypes().then((text) => {
  if (process.argv.includes('--check')) {
    const current = readFileSync(target, 'utf8') === text;
    process.stdout.write(current ? `${GENERATED_TYPES_PATH} is current\n` : `${GENERATED_TYPES_PATH} is stale: run pnpm --filter @slipway/api-client generate\n`);
    process.exitCode = current ? 0 : 1;
    return;
  }
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target}\n`);
});
