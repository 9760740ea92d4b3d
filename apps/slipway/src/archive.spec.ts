import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listFiles, zipFolder } from './archive';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'slipway-archive-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('listFiles', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const make = (files: Record<string, string>) => {
    const d = folder(files);
    dirs.push(d);
    return d;
  };

  it('honours .gitignore and always leaves out node_modules, .git and .env files', () => {
    const dir = make({
      '.gitignore': 'big/\n*.log\n',
      'package.json': '{}',
      'src/index.js': '',
      'big/blob.bin': 'x',
      'debug.log': '',
      'node_modules/x/index.js': '',
      '.git/HEAD': '',
      '.env': 'SECRET=1',
      '.env.production': 'SECRET=2',
      'src/node_modules/y.js': '',
    });
    expect(listFiles(dir).files).toEqual(['.gitignore', 'package.json', 'src/index.js']);
  });

  it('.slipwayignore leaves out more, and may re-include what is left out by default', () => {
    const dir = make({ '.slipwayignore': 'docs/\n!.env.example\n', 'docs/a.md': '', '.env.example': 'A=', '.env': 'A=1', 'app.js': '' });
    expect(listFiles(dir).files).toEqual(['.env.example', '.slipwayignore', 'app.js']);
  });

  it('applies a nested .gitignore to its own folder only', () => {
    const dir = make({ 'web/.gitignore': 'dist\n', 'web/dist/a.js': '', 'web/src/a.js': '', 'dist/keep.js': '' });
    expect(listFiles(dir).files).toEqual(['dist/keep.js', 'web/.gitignore', 'web/src/a.js']);
  });

  it('uploads .env files with includeEnv, and leaves symbolic links out, naming them', () => {
    const dir = make({ '.env': 'A=1', 'app.js': '' });
    symlinkSync('app.js', path.join(dir, 'link.js'));
    const list = listFiles(dir, { includeEnv: true });
    expect(list.files).toEqual(['.env', 'app.js']);
    expect(list.skippedLinks).toEqual(['link.js']);
  });

  it('zips the listed files', async () => {
    const dir = make({ 'app.js': 'console.log(1)\n'.repeat(100), 'node_modules/a.js': 'x'.repeat(100_000) });
    const archive = await zipFolder(dir);
    dirs.push(path.dirname(archive.file));
    expect(archive.files).toBe(1);
    expect(archive.bytes).toBeGreaterThan(50);
    expect(archive.bytes).toBeLessThan(1000);
  });
});
