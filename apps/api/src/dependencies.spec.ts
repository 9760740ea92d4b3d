// The API composes packages only: it never depends on the worker (nor any other app). The workers run as their own
// process; what both need (the database agent adapter, the databases' certificates) lives in packages/ (issue 27).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const APPS = ['@slipway/worker', '@slipway/agent', '@slipway/cli'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

const dependenciesOf = (file: string): string[] => {
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string> | undefined>;
  return [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
};

describe('the API package', () => {
  it('lists no app among its dependencies', () => {
    const listed = dependenciesOf(path.join(__dirname, '..', 'package.json'));
    expect(listed.filter((name) => APPS.includes(name))).toEqual([]);
  });

  it('has no source file (specs included) that imports an app', () => {
    const importsAnApp = sources(__dirname).filter((file) => APPS.some((app) => readFileSync(file, 'utf8').includes(`from '${app}`)));
    expect(importsAnApp.map((f) => path.relative(__dirname, f))).toEqual([]);
  });
});
