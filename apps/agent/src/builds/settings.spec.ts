import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { detect, type SourceTree } from './detect';
import { DEFAULT_BASE_IMAGES, dockerfileFor } from './dockerfiles';
import { BuildError } from './extract';
import { applySettings, narrowToRoot, NO_SETTINGS, parseSettings, rootDirectory, withStartCommand, type AppBuildSettings } from './settings';

const tree = (files: Record<string, string>): SourceTree => ({ files: new Set(Object.keys(files)), read: (n) => files[n] ?? null });
const images = DEFAULT_BASE_IMAGES;
const plan = (files: Record<string, string>, s: Partial<AppBuildSettings>) => {
  const settings = { ...NO_SETTINGS, ...s };
  return applySettings(detect(withStartCommand(tree(files), settings)), settings);
};

describe("an app's build settings", () => {
  it('parses the request: empty means detected; commands are one line without control characters', () => {
    expect(parseSettings({ buildCommand: '', startCommand: '  ', rootDirectory: '' })).toEqual(NO_SETTINGS);
    expect(parseSettings({ buildCommand: ' npm run build:prod ', startCommand: 'node dist/main.js --port $PORT', rootDirectory: './apps/web/' })).toEqual({
      buildCommand: 'npm run build:prod',
      startCommand: 'node dist/main.js --port $PORT',
      rootDirectory: 'apps/web',
    });
    for (const bad of ['npm run build\nRUN rm -rf /', 'a\rb', 'a\u0000b', 'x'.repeat(1025)]) expect(() => parseSettings({ buildCommand: bad })).toThrow(BuildError);
  });

  it('a root directory is a confined relative folder', () => {
    expect(rootDirectory('.')).toBeNull();
    expect(rootDirectory('packages/api')).toBe('packages/api');
    for (const bad of ['/etc', '../x', 'a/../../b', 'a/./b', 'a\\b', 'a b', 'a//b', '~/x']) expect(() => rootDirectory(bad)).toThrow(BuildError);
  });

  it('narrows the upload to its root directory; a missing folder, a file or a link fails with a reason', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-root-'));
    try {
      const app = path.join(dir, 'app');
      await mkdir(path.join(app, 'apps', 'web'), { recursive: true });
      await writeFile(path.join(app, 'apps', 'web', 'package.json'), '{}');
      await writeFile(path.join(app, 'README.md'), '');
      await narrowToRoot(app, 'apps/web');
      expect(await readdir(app)).toEqual(['package.json']);
      expect(await readdir(dir)).toEqual(['app']);

      await writeFile(path.join(app, 'file'), '');
      await symlink('/etc', path.join(app, 'link'));
      await expect(narrowToRoot(app, 'missing')).rejects.toThrow(/root directory missing\/ is not a folder of the upload \(missing is missing\)/);
      await expect(narrowToRoot(app, 'file')).rejects.toThrow(/is not a folder/);
      await expect(narrowToRoot(app, 'link')).rejects.toThrow(/is not a folder/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a start command makes an app with nothing to start from buildable, and replaces a Procfile and the start script', () => {
    const bare = plan({ 'package.json': '{}' }, { startCommand: 'node worker.js' });
    expect(bare.plan).toMatchObject({ language: 'node', start: 'node worker.js' });
    expect(bare.lines).toEqual(["Start command from the app's settings: node worker.js"]);
    expect(bare.plan.reasons.join('\n')).not.toMatch(/Procfile/);

    const over = plan({ 'package.json': JSON.stringify({ scripts: { start: 'node a.js' } }), Procfile: 'web: node b.js' }, { startCommand: 'node c.js' });
    expect(over.plan).toMatchObject({ start: 'node c.js' });
    expect(dockerfileFor(over.plan, { images, extraCa: false })).toContain('CMD ["sh","-c","exec node c.js"]');

    expect(plan({ 'requirements.txt': '' }, { startCommand: 'python -m app' }).plan).toMatchObject({ language: 'python', start: 'python -m app' });
    // Variables set in front of the command: no exec (it would take NAME=value for a program).
    expect(dockerfileFor(plan({ 'package.json': '{}' }, { startCommand: 'ALT=1 node a.js' }).plan, { images, extraCa: false })).toContain('CMD ["sh","-c","ALT=1 node a.js"]');
  });

  it('a build command replaces the build step of a Node.js app, as one argument of sh -c in the build container', () => {
    const p = plan({ 'package.json': JSON.stringify({ scripts: { build: 'tsc', start: 'node dist/a.js' } }) }, { buildCommand: "npm run build:prod && echo 'done'" });
    expect(p.plan).toMatchObject({ build: `sh -c 'npm run build:prod && echo '\\''done'\\'''` });
    expect(p.lines).toEqual(["Build command from the app's settings: npm run build:prod && echo 'done'"]);
    expect(p.plan.reasons.join('\n')).not.toMatch(/build script|no build/);
    expect(p.plan.reasons[0]).toContain(" · npm run build:prod && echo 'done' · ");
    expect(dockerfileFor(p.plan, { images, extraCa: false })).toContain(`RUN sh -c 'npm run build:prod && echo '\\''done'\\''' && rm -rf node_modules\n`);
  });

  it('says what it cannot apply: commands of an upload with a Dockerfile, a build command of Python', () => {
    const docker = plan({ Dockerfile: 'FROM x', 'package.json': '{}' }, { buildCommand: 'make', startCommand: 'x', rootDirectory: 'svc' });
    expect(docker.plan.language).toBe('dockerfile');
    expect(docker.lines).toEqual(["Root directory from the app's settings: svc/", "The app's build and start commands are not used: the upload's Dockerfile decides (its RUN and CMD)"]);
    expect(plan({ 'requirements.txt': '', 'main.py': '' }, { buildCommand: 'make' }).lines).toEqual(["The app's build command is not used: Python builds have no build step"]);
  });
});
