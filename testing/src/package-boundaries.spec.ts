// Dependencies point inward (issue 27, item 7): no file under packages/ imports an app — by its package name or by a
// relative path into apps/ — and no package lists an app among its dependencies. ESLint refuses such an import too
// (eslint.config.mjs, NO_APPS); this holds without it, on every file (specs, scripts and generated code included).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const APP_PACKAGES = readdirSync(path.join(ROOT, 'apps'))
  .map((dir) => path.join(ROOT, 'apps', dir, 'package.json'))
  .filter((f) => existsSync(f))
  .map((f) => (JSON.parse(readFileSync(f, 'utf8')) as { name: string }).name);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name === 'dist') return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(e.name) ? [full] : [];
  });
}

/**
 * The imports of an app in the source `text` of `file`: `from '@slipway/worker…'`, `import('…')`, `require('…')`, or a
 * relative path that lands in the repository's apps/.
 */
export function appImports(file: string, text: string, apps: readonly string[]): string[] {
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  const intoApps = (s: string) => s.startsWith('.') && path.resolve(path.dirname(file), s).startsWith(`${path.join(ROOT, 'apps')}${path.sep}`);
  return specifiers.filter((s) => apps.some((a) => s === a || s.startsWith(`${a}/`)) || intoApps(s));
}

/** Every app a package's package.json lists (dependencies of any kind), as `packages/<dir>: <name>`. */
function appDependencies(dir: string): string[] {
  const file = path.join(ROOT, 'packages', dir, 'package.json');
  if (!existsSync(file)) return [];
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string> | undefined>;
  const names = [pkg.dependencies, pkg.devDependencies, pkg.peerDependencies].flatMap((deps) => Object.keys(deps ?? {}));
  return names.filter((name) => APP_PACKAGES.includes(name)).map((name) => `packages/${dir}: ${name}`);
}

describe('packages never import an app', () => {
  it('finds the apps it guards', () => {
    expect(APP_PACKAGES).toEqual(expect.arrayContaining(['@slipway/api', '@slipway/worker', '@slipway/agent']));
  });

  it('no file under packages/ imports an app', () => {
    const offenders = sources(path.join(ROOT, 'packages')).flatMap((f) => appImports(f, readFileSync(f, 'utf8'), APP_PACKAGES).map((s) => `${path.relative(ROOT, f)}: ${s}`));
    expect(offenders).toEqual([]);
  });

  it('no package lists an app among its dependencies', () => {
    expect(readdirSync(path.join(ROOT, 'packages')).flatMap(appDependencies)).toEqual([]);
  });

  it.each([
    ["import { startWorkerRuntime } from '@slipway/worker';", ['@slipway/worker']],
    ["import type { X } from '@slipway/api/src/services';", ['@slipway/api/src/services']],
    ["const m = await import('@slipway/agent');", ['@slipway/agent']],
    ["const c = require('../../../../apps/worker/src/runtime');", ['../../../../apps/worker/src/runtime']],
    ["import { createDb } from '@slipway/db'; import '@slipway/core'; import type { AppRecord } from '../apps/app.ports';", []],
  ])('reads %s', (text, expected) => {
    const file = path.join(ROOT, 'packages/core/src/github/example.ts');
    expect(appImports(file, text, ['@slipway/api', '@slipway/worker', '@slipway/agent'])).toEqual(expected);
  });
});
