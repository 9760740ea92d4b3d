import type { SourceTree } from './detect';
import { BuildError } from './extract';
import { chooseNodeMajor, choosePythonVersion, pythonSeriesSatisfies, requiresPython, resolveNodeSpec } from './runtime-version';

const tree = (files: Record<string, string>): SourceTree => ({ files: new Set(Object.keys(files)), read: (n) => files[n] ?? null });
const node = { supported: [20, 22, 24, 26], default: 24 };
const python = { supported: ['3.11'], default: '3.11' };

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(BuildError);
    return (e as Error).message;
  }
  throw new Error('did not fail');
}

describe('Node.js major', () => {
  it('the default (24) when the app names none', () => {
    expect(chooseNodeMajor(tree({}), {}, node)).toEqual({ major: 24, because: 'the default: no .nvmrc, .node-version, .tool-versions, volta.node, engines.node' });
  });

  it('engines.node: the default when it satisfies the range, else the newest supported major that does', () => {
    expect(chooseNodeMajor(tree({}), { engines: { node: '>=20.9.0' } }, node)).toEqual({ major: 24, because: 'engines.node >=20.9.0' });
    expect(chooseNodeMajor(tree({}), { engines: { node: '^20.17.0 || ^22.9.0' } }, node).major).toBe(22);
    expect(chooseNodeMajor(tree({}), { engines: { node: '20.x' } }, node).major).toBe(20);
    expect(chooseNodeMajor(tree({}), { engines: { node: '>=25' } }, node).major).toBe(26);
  });

  it('.nvmrc: versions with or without v, comments, nvm aliases and LTS names', () => {
    expect(chooseNodeMajor(tree({ '.nvmrc': 'v22.11.0\n' }), {}, node)).toEqual({ major: 22, because: '.nvmrc v22.11.0' });
    expect(chooseNodeMajor(tree({ '.nvmrc': '# pinned\n20\n' }), {}, node).major).toBe(20);
    expect(chooseNodeMajor(tree({ '.nvmrc': 'lts/*' }), {}, node).major).toBe(24);
    expect(chooseNodeMajor(tree({ '.nvmrc': 'lts/jod' }), {}, node).major).toBe(22);
    expect(chooseNodeMajor(tree({ '.nvmrc': 'node' }), {}, node).major).toBe(26);
  });

  it('.node-version', () => {
    expect(chooseNodeMajor(tree({ '.node-version': '26.1.0' }), {}, node)).toEqual({ major: 26, because: '.node-version 26.1.0' });
  });

  it('.tool-versions: the nodejs (asdf) or node (mise) line, first version of it', () => {
    expect(chooseNodeMajor(tree({ '.tool-versions': 'python 3.11.4\nnodejs 22.3.0 20.1.0\n' }), {}, node)).toEqual({ major: 22, because: '.tool-versions 22.3.0' });
    expect(chooseNodeMajor(tree({ '.tool-versions': 'node 20' }), {}, node).major).toBe(20);
    expect(chooseNodeMajor(tree({ '.tool-versions': 'python 3.11.4\n' }), {}, node).major).toBe(24);
  });

  it('volta.node', () => {
    expect(chooseNodeMajor(tree({}), { volta: { node: '20.18.1' } }, node)).toEqual({ major: 20, because: 'volta.node 20.18.1' });
  });

  it('an explicit pin wins over the engines range', () => {
    expect(chooseNodeMajor(tree({ '.nvmrc': '22' }), { engines: { node: '>=20' }, volta: { node: '20.1.0' } }, node)).toEqual({ major: 22, because: '.nvmrc 22' });
  });

  it('a range no supported major satisfies fails with a sentence naming it and what the server has', () => {
    const reason = failure(() => chooseNodeMajor(tree({}), { engines: { node: '^18.17.0' } }, node));
    expect(reason).toBe('engines.node asks for Node.js ^18.17.0, which none of the versions this server builds with satisfies (Node.js 20, 22, 24, 26); change engines.node to one of them');
    expect(failure(() => chooseNodeMajor(tree({ '.nvmrc': '16' }), {}, node))).toMatch(/^\.nvmrc asks for Node\.js 16,/);
    expect(failure(() => chooseNodeMajor(tree({ '.nvmrc': 'lts/hydrogen' }), {}, node))).toMatch(/lts\/hydrogen/);
    expect(failure(() => resolveNodeSpec('lts/nosuch', '.nvmrc', node))).toMatch(/an LTS name Slipway does not know/);
    expect(failure(() => resolveNodeSpec('banana', 'engines.node', node))).toBe('engines.node says "banana", which is not a Node.js version or range (this server builds with Node.js 20, 22, 24, 26)');
  });

  it('another server\'s majors and default', () => {
    expect(chooseNodeMajor(tree({}), { engines: { node: '>=20' } }, { supported: [20, 22], default: 22 }).major).toBe(22);
    expect(chooseNodeMajor(tree({}), {}, { supported: [22], default: 22 }).major).toBe(22);
  });
});

describe('Python version', () => {
  it('the default when the app names none', () => {
    expect(choosePythonVersion(tree({}), python)).toEqual({ version: '3.11', because: 'the default: no .python-version, runtime.txt, requires-python' });
  });
  it('.python-version, runtime.txt and requires-python, in that order', () => {
    expect(choosePythonVersion(tree({ '.python-version': '3.11.9\n' }), python)).toEqual({ version: '3.11', because: '.python-version 3.11.9' });
    expect(choosePythonVersion(tree({ 'runtime.txt': 'python-3.11.4' }), python)).toEqual({ version: '3.11', because: 'runtime.txt python-3.11.4' });
    const pyproject = '[project]\nname = "x"\nrequires-python = ">=3.9,<3.13"\n';
    expect(choosePythonVersion(tree({ 'pyproject.toml': pyproject }), python)).toEqual({ version: '3.11', because: 'requires-python >=3.9,<3.13' });
    expect(choosePythonVersion(tree({ '.python-version': '3.11', 'runtime.txt': 'python-3.12.1' }), python).because).toBe('.python-version 3.11');
  });
  it('a version the server does not have fails naming the versions it has', () => {
    expect(failure(() => choosePythonVersion(tree({ '.python-version': '3.12' }), python))).toBe('.python-version asks for Python 3.12; this server has Python 3.11');
    expect(failure(() => choosePythonVersion(tree({ 'runtime.txt': 'python-3.9.18' }), python))).toBe('runtime.txt asks for Python 3.9.18; this server has Python 3.11');
    expect(failure(() => choosePythonVersion(tree({ 'pyproject.toml': '[project]\nrequires-python = ">=3.12"\n' }), python))).toBe(
      'pyproject.toml\'s requires-python is ">=3.12", which no Python here satisfies (this server has Python 3.11)',
    );
    expect(failure(() => choosePythonVersion(tree({ '.python-version': 'pypy3.10' }), python))).toMatch(/not a CPython version/);
  });
  it('PEP 440 specifiers against a series', () => {
    expect(pythonSeriesSatisfies('3.11', '>=3.8')).toBe(true);
    expect(pythonSeriesSatisfies('3.11', '~=3.10')).toBe(true);
    expect(pythonSeriesSatisfies('3.11', '~=3.10.2')).toBe(false);
    expect(pythonSeriesSatisfies('3.11', '==3.11.*')).toBe(true);
    expect(pythonSeriesSatisfies('3.11', '!=3.11.*')).toBe(false);
    expect(pythonSeriesSatisfies('3.11', '>3.11.4, <3.12')).toBe(true);
    expect(pythonSeriesSatisfies('3.11', '<3.11')).toBe(false);
    expect(requiresPython('[project]\nname = "a"\nrequires-python = ">=3.10"\n[tool.x]\nrequires-python = "no"\n')).toBe('>=3.10');
    expect(requiresPython('[tool.poetry]\nrequires-python = ">=3.10"\n')).toBeNull();
  });
});
