import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { BuildError } from './extract';
import { ASTRO_CONFIGS, ENTRY_FILES, NEXT_CONFIGS, NUXT_CONFIGS, planNode, SVELTE_CONFIGS, VITE_CONFIGS, type NodePlan } from './node-plan';
import { choosePythonVersion, type NodeVersions, type PythonVersions } from './runtime-version';

/** The root of an extracted upload, as detection sees it: the names at its top and the text of the few files it reads. */
export interface SourceTree {
  /** Names of the regular files at the root. */
  files: ReadonlySet<string>;
  read(name: string): string | null;
}

export type { PackageManager } from './node-plan';

export type BuildPlan =
  | { language: 'dockerfile'; reasons: string[] }
  | NodePlan
  | {
      language: 'python';
      reasons: string[];
      /** major.minor, one of the server's Python versions. */
      version: string;
      installFiles: string[];
      install: string;
      installAfterSource: boolean;
      requirements: string | null;
      start: string;
    }
  | { language: 'static'; reasons: string[]; start: string | null };

/** The runtime versions a server builds with (config.runtimes). */
export interface Runtimes {
  node: NodeVersions;
  python: PythonVersions;
}

export const DEFAULT_RUNTIMES: Runtimes = { node: { supported: [20, 22, 24, 26], default: 24 }, python: { supported: ['3.11'], default: '3.11' } };

/** Files whose content detection may read (the rest only counts by name). */
const READ = [
  'package.json',
  'Procfile',
  'requirements.txt',
  'pyproject.toml',
  'pnpm-lock.yaml',
  'yarn.lock',
  'main.py',
  'app.py',
  'wsgi.py',
  'asgi.py',
  'server.py',
  '.nvmrc',
  '.node-version',
  '.tool-versions',
  '.python-version',
  'runtime.txt',
  'angular.json',
  ...NEXT_CONFIGS,
  ...VITE_CONFIGS,
  ...SVELTE_CONFIGS,
  ...ASTRO_CONFIGS,
  ...NUXT_CONFIGS,
  ...ENTRY_FILES,
];
const MAX_READ = 1_000_000;

/** Reads what detection needs of a folder (root-level regular files only; nothing is followed). */
export async function readSourceTree(dir: string): Promise<SourceTree> {
  const files = new Set<string>();
  for (const e of await readdir(dir, { withFileTypes: true })) if (e.isFile()) files.add(e.name);
  const texts = new Map<string, string>();
  for (const name of new Set(READ)) {
    // Root files by the listing; a few known server entries under src/ (a regular file, never followed).
    if (!name.includes('/') && !files.has(name)) continue;
    const p = path.join(dir, name);
    const st = await lstat(p).catch(() => null);
    if (!st?.isFile() || st.size > MAX_READ) continue;
    texts.set(name, await readFile(p, 'utf8'));
  }
  return { files, read: (name) => texts.get(name) ?? null };
}

/**
 * Decides how an upload is built, in a fixed order: a Dockerfile at the root; Node (package.json); Python
 * (requirements.txt or pyproject.toml); a static site (index.html). A Procfile `web:` line overrides the start
 * command of a generated build. Every decision is a line in `reasons`, which the build log shows.
 */
export function detect(tree: SourceTree, runtimes: Runtimes = DEFAULT_RUNTIMES): BuildPlan {
  const reasons: string[] = [];
  const procfileWeb = webLine(tree.read('Procfile'));

  if (tree.files.has('Dockerfile')) {
    reasons.push('Found a Dockerfile at the root: building it as it is');
    if (procfileWeb) reasons.push("The Procfile's web: line is not used: the Dockerfile's CMD starts the app");
    return { language: 'dockerfile', reasons };
  }

  if (tree.files.has('package.json')) {
    reasons.push('Found package.json: a Node.js app');
    return planNode(tree, reasons, procfileWeb, runtimes.node);
  }

  if (tree.files.has('requirements.txt') || tree.files.has('pyproject.toml')) {
    reasons.push(`Found ${tree.files.has('requirements.txt') ? 'requirements.txt' : 'pyproject.toml'}: a Python app`);
    return python(tree, reasons, procfileWeb, runtimes.python);
  }

  if (tree.files.has('index.html')) {
    reasons.push('Found index.html: a static site, served by the static file server');
    if (procfileWeb) reasons.push(`Start command from the Procfile's web: line: ${procfileWeb}`);
    return { language: 'static', reasons, start: procfileWeb };
  }

  throw new BuildError(
    'Could not tell how to build this upload. Looked at the root of the .zip for, in order: a Dockerfile; package.json (Node.js); ' +
      'requirements.txt or pyproject.toml (Python); index.html (a static site). None was there' +
      (tree.files.size ? ` (files at the root: ${[...tree.files].sort().slice(0, 10).join(', ')}${tree.files.size > 10 ? ', …' : ''})` : ''),
  );
}

function python(tree: SourceTree, reasons: string[], procfileWeb: string | null, versions: PythonVersions): BuildPlan {
  const chosen = choosePythonVersion(tree, versions);
  reasons.push(chosen.because.startsWith('the default') ? `Python ${chosen.version}, ${chosen.because}` : `Python ${chosen.version} from ${chosen.because}`);
  let installFiles: string[];
  let install: string;
  let installAfterSource = false;
  let requirements: string | null = null;
  const deps: string[] = [];
  if (tree.files.has('requirements.txt')) {
    installFiles = ['requirements.txt'];
    install = 'pip install --no-cache-dir -r requirements.txt';
    deps.push(...requirementNames(tree.read('requirements.txt') ?? ''));
    reasons.push('Dependencies installed from requirements.txt (pip install -r requirements.txt)');
  } else {
    const listed = pyprojectDependencies(tree.read('pyproject.toml') ?? '');
    if (listed) {
      // The [project] dependencies become a requirements file of their own, so the install is a layer that is
      // reused while they are unchanged, and the project itself need not be installable.
      installFiles = [];
      requirements = listed.join('\n') + '\n';
      install = 'pip install --no-cache-dir -r /tmp/slipway-requirements.txt';
      deps.push(...listed.flatMap((l) => requirementNames(l)));
      reasons.push(`Dependencies from pyproject.toml's [project] dependencies (${listed.length}), installed with pip`);
    } else {
      installFiles = [];
      install = 'pip install --no-cache-dir .';
      installAfterSource = true;
      reasons.push('pyproject.toml lists no [project] dependencies: the project is installed with pip install .');
    }
  }

  let start: string;
  if (procfileWeb) {
    start = procfileWeb;
    reasons.push(`Start command from the Procfile's web: line: ${start}`);
  } else {
    const server = deps.includes('gunicorn') ? 'gunicorn' : deps.includes('uvicorn') ? 'uvicorn' : null;
    const target = server ? appObject(tree) : null;
    if (server && target) {
      start = server === 'gunicorn' ? `gunicorn --bind 0.0.0.0:$PORT ${target}` : `uvicorn ${target} --host 0.0.0.0 --port $PORT`;
      reasons.push(`${server} is a dependency and ${target} is an app object: ${start}`);
    } else {
      const entry = ['main.py', 'app.py'].find((f) => tree.files.has(f));
      if (!entry) {
        throw new BuildError(
          'Could not tell how to start this Python app: there is no Procfile with a web: line, no gunicorn or uvicorn app (a dependency plus an `app = …` in app.py, main.py, wsgi.py, asgi.py or server.py), and neither main.py nor app.py is at the root',
        );
      }
      start = `python ${entry}`;
      reasons.push(`Start command: ${start}${server ? ` (${server} is a dependency but no app object was found)` : ''}`);
    }
  }
  return { language: 'python', reasons, version: chosen.version, installFiles, install, installAfterSource, requirements, start };
}

/** The command of a Procfile's `web:` line, or null. */
export function webLine(procfile: string | null): string | null {
  if (!procfile) return null;
  for (const line of procfile.split(/\r?\n/)) {
    const m = /^web\s*:\s*(.+)$/.exec(line.trim());
    if (m?.[1]?.trim()) return m[1].trim();
  }
  return null;
}

/** Normalised project names of requirement lines (`Flask>=2 ; python_version…` → flask). */
export function requirementNames(text: string): string[] {
  const names: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line || line.startsWith('-')) continue;
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(line);
    if (m?.[1]) names.push(m[1].toLowerCase().replace(/[._]+/g, '-'));
  }
  return names;
}

/** The `dependencies = [...]` array of the [project] table, or null when there is none. A small reader, not TOML. */
export function pyprojectDependencies(toml: string): string[] | null {
  const project = /^\[project\]\s*$([\s\S]*?)(?=^\[|$(?![\s\S]))/m.exec(toml);
  if (!project?.[1]) return null;
  const deps = /^dependencies\s*=\s*\[([\s\S]*?)\]/m.exec(project[1]);
  if (!deps?.[1]) return null;
  const items = [...deps[1].matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => (m[1] ?? m[2] ?? '').trim()).filter(Boolean);
  return items.length ? items : null;
}

/** `module:variable` of a WSGI/ASGI app object in the usual files (`app = Flask(__name__)`), or null. */
function appObject(tree: SourceTree): string | null {
  for (const file of ['app.py', 'main.py', 'wsgi.py', 'asgi.py', 'server.py']) {
    const text = tree.read(file);
    if (!text) continue;
    const m = /^(app|application|api|server)\s*(?::\s*[A-Za-z_.]+\s*)?=\s*[A-Za-z_.]+\(/m.exec(text);
    if (m?.[1]) return `${file.slice(0, -3)}:${m[1]}`;
  }
  return null;
}
