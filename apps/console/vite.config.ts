// The console's build: hashed assets in dist/assets (served for a year, immutable), index.html (never cached), and a
// .br and .gz beside every text file so the API serves them precompressed (apps/api/src/http/console.ts).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const TEXT = /\.(js|css|html|svg|json)$/;

function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'slipway-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
      for (const file of walk(outDir).filter((f) => TEXT.test(f))) {
        const body = readFileSync(file);
        writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), precompress()],
  // The precompression plugin is slow on purpose (brotli 11): no timing warning for it at every build.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, target: 'es2022', rolldownOptions: { checks: { pluginTimings: false } } },
  server: { proxy: { '/v1': 'http://127.0.0.1:7070' } },
});
