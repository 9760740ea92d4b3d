import semver from 'semver';
import type { SourceTree } from './detect';
import { BuildError } from './extract';

/** The Node.js majors a server builds with, and the one an app gets when it names none (the active LTS). */
export interface NodeVersions {
  supported: readonly number[];
  default: number;
}

export interface NodeChoice {
  major: number;
  /** Why, for the build log: "engines >=20.9.0", ".nvmrc 22", "the default: no engines.node, …". */
  because: string;
}

/** Where an app names its Node.js version, in the order they are looked at (an explicit pin before a range). */
export const NODE_VERSION_SOURCES = ['.nvmrc', '.node-version', '.tool-versions', 'volta.node', 'engines.node'] as const;

/** nvm's LTS code names (`lts/jod`). */
const LTS_NAMES: Record<string, number> = { argon: 4, boron: 6, carbon: 8, dubnium: 10, erbium: 12, fermium: 14, gallium: 16, hydrogen: 18, iron: 20, jod: 22, krypton: 24 };

/**
 * The Node.js major of an app: the first of .nvmrc, .node-version, .tool-versions (`nodejs`/`node`), package.json's
 * volta.node and engines.node that is present. A version or range picks the default when the default satisfies it,
 * else the newest supported major that does; a range no supported major satisfies is a BuildError that names it.
 * Only majors are chosen: the image carries its own patch release of that major.
 */
export function chooseNodeMajor(tree: SourceTree, pkg: { engines?: unknown; volta?: unknown }, versions: NodeVersions): NodeChoice {
  for (const source of NODE_VERSION_SOURCES) {
    const spec = nodeSpec(source, tree, pkg);
    if (spec === null) continue;
    return { major: resolveNodeSpec(spec, source, versions), because: `${source} ${spec}` };
  }
  return { major: versions.default, because: `the default: no ${NODE_VERSION_SOURCES.join(', ')}` };
}

function nodeSpec(source: (typeof NODE_VERSION_SOURCES)[number], tree: SourceTree, pkg: { engines?: unknown; volta?: unknown }): string | null {
  switch (source) {
    case '.nvmrc':
    case '.node-version':
      return firstLine(tree.read(source));
    case '.tool-versions': {
      // asdf: `nodejs 22.11.0`; mise also reads `node 22`. Several versions on a line are fallbacks: the first counts.
      for (const line of (tree.read(source) ?? '').split(/\r?\n/)) {
        const [tool, version] = line.replace(/#.*$/, '').trim().split(/\s+/);
        if ((tool === 'nodejs' || tool === 'node') && version) return version;
      }
      return null;
    }
    case 'volta.node':
      return stringField(pkg.volta, 'node');
    case 'engines.node':
      return stringField(pkg.engines, 'node');
  }
}

/** The major a version spec (nvm alias, version, semver range) resolves to, or a BuildError naming it. */
export function resolveNodeSpec(spec: string, source: string, versions: NodeVersions): number {
  const supported = [...versions.supported].sort((a, b) => a - b);
  const list = supported.join(', ');
  const alias = spec.toLowerCase();
  if (alias === 'lts/*' || alias === 'lts' || alias === 'lts/latest') return versions.default;
  if (alias === 'node' || alias === 'latest' || alias === 'current' || alias === 'stable') return supported[supported.length - 1] ?? versions.default;
  let range: string | null;
  const lts = /^lts\/([a-z]+)$/.exec(alias);
  if (lts) {
    const major = LTS_NAMES[lts[1]!];
    if (major === undefined) throw new BuildError(`${source} asks for Node.js ${spec}, an LTS name Slipway does not know; name a version instead (this server builds with Node.js ${list})`);
    range = `${major}`;
  } else {
    range = semver.validRange(spec.replace(/^v(?=\d)/i, ''));
  }
  if (range === null) throw new BuildError(`${source} says "${spec}", which is not a Node.js version or range (this server builds with Node.js ${list})`);
  const fits = supported.filter((m) => semver.intersects(range, `>=${m}.0.0 <${m + 1}.0.0-0`, { includePrerelease: true }));
  if (fits.length === 0) throw new BuildError(`${source} asks for Node.js ${spec}, which none of the versions this server builds with satisfies (Node.js ${list}); change ${source} to one of them`);
  return fits.includes(versions.default) ? versions.default : fits[fits.length - 1]!;
}

/** The Python versions (major.minor) a server has, and the one an app gets when it names none. */
export interface PythonVersions {
  supported: readonly string[];
  default: string;
}

export interface PythonChoice {
  version: string;
  because: string;
}

export const PYTHON_VERSION_SOURCES = ['.python-version', 'runtime.txt', 'requires-python'] as const;

/**
 * The Python version (major.minor) of an app: .python-version, runtime.txt (`python-3.11.9`) or pyproject.toml's
 * [project] requires-python, the first present. One the server does not have is a BuildError naming what it has.
 */
export function choosePythonVersion(tree: SourceTree, versions: PythonVersions): PythonChoice {
  const have = `this server has Python ${versions.supported.join(', ')}`;
  const pinned = firstLine(tree.read('.python-version'));
  if (pinned !== null && pinned !== 'system') {
    const minor = /^(?:python-?|cpython-)?(\d+\.\d+)(?:\.\d+)?$/i.exec(pinned)?.[1];
    if (!minor) throw new BuildError(`.python-version says "${pinned}", which is not a CPython version such as 3.11 (${have})`);
    if (!versions.supported.includes(minor)) throw new BuildError(`.python-version asks for Python ${pinned}; ${have}`);
    return { version: minor, because: `.python-version ${pinned}` };
  }
  const runtime = firstLine(tree.read('runtime.txt'));
  if (runtime !== null) {
    const minor = /^python-(\d+\.\d+)(?:\.\d+)?$/i.exec(runtime)?.[1];
    if (!minor) throw new BuildError(`runtime.txt says "${runtime}"; it should name a version such as python-3.11.9 (${have})`);
    if (!versions.supported.includes(minor)) throw new BuildError(`runtime.txt asks for Python ${runtime.slice(7)}; ${have}`);
    return { version: minor, because: `runtime.txt ${runtime}` };
  }
  const requires = requiresPython(tree.read('pyproject.toml') ?? '');
  if (requires !== null) {
    const fits = versions.supported.filter((v) => pythonSeriesSatisfies(v, requires));
    if (fits.length === 0) throw new BuildError(`pyproject.toml's requires-python is "${requires}", which no Python here satisfies (${have})`);
    const version = fits.includes(versions.default) ? versions.default : fits[fits.length - 1]!;
    return { version, because: `requires-python ${requires}` };
  }
  return { version: versions.default, because: `the default: no ${PYTHON_VERSION_SOURCES.join(', ')}` };
}

/** `requires-python = "…"` of the [project] table, or null. */
export function requiresPython(toml: string): string | null {
  const project = /^\[project\]\s*$([\s\S]*?)(?=^\[|$(?![\s\S]))/m.exec(toml);
  return /^requires-python\s*=\s*["']([^"']*)["']/m.exec(project?.[1] ?? '')?.[1]?.trim() || null;
}

/**
 * Whether some release of a Python series (`3.11`) satisfies a PEP 440 specifier set (`>=3.9,<3.13`, `~=3.10`,
 * `==3.11.*`). Patch releases 0–50 stand for the series; the server runs whichever one its image has.
 */
export function pythonSeriesSatisfies(series: string, spec: string): boolean {
  const clauses = spec.split(',').map((c) => c.trim()).filter(Boolean);
  for (let patch = 0; patch <= 50; patch++) {
    const v = [...series.split('.').map(Number), patch];
    if (clauses.every((c) => clauseHolds(v, c))) return true;
  }
  return false;
}

function clauseHolds(v: number[], clause: string): boolean {
  const m = /^(~=|===|==|!=|<=|>=|<|>)\s*v?([0-9]+(?:\.[0-9]+)*)(\.\*)?$/.exec(clause);
  if (!m) return false;
  const [, op, text, wildcard] = m;
  const want = text!.split('.').map(Number);
  const cmp = compare(v, want);
  const prefix = want.every((n, i) => v[i] === n);
  switch (op) {
    case '==':
    case '===':
      return wildcard ? prefix : cmp === 0;
    case '!=':
      return wildcard ? !prefix : cmp !== 0;
    case '<=':
      return cmp <= 0;
    case '>=':
      return cmp >= 0;
    case '<':
      return cmp < 0;
    case '>':
      return cmp > 0;
    case '~=':
      // ~=3.10 means >=3.10, ==3.*; ~=3.10.2 means >=3.10.2, ==3.10.*.
      return cmp >= 0 && want.slice(0, -1).every((n, i) => v[i] === n);
  }
  return false;
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The first line that is not blank or a comment, trimmed. */
function firstLine(text: string | null): string | null {
  for (const line of (text ?? '').split(/\r?\n/)) {
    const t = line.replace(/#.*$/, '').trim();
    if (t) return t;
  }
  return null;
}

function stringField(obj: unknown, key: string): string | null {
  if (!obj || typeof obj !== 'object') return null;
  const v = (obj as Record<string, unknown>)[key];
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}
