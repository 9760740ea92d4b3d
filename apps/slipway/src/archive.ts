// The .zip of a folder for `slipway deploy`: what git would commit (.gitignore files at any depth), minus
// .slipwayignore, never node_modules, .git or .env* unless .slipwayignore re-includes them (`!.env.production`) or
// --include-env is given. Symbolic links are left out (the server refuses links in an upload).
import { createWriteStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import ignore, { type Ignore } from 'ignore';
import yazl from 'yazl';

export const ALWAYS_LEFT_OUT = ['node_modules/', '.git/', '.slipway.json'];
export const ENV_FILES = ['.env', '.env.*', '.env*'];

interface Scope {
  /** Folder of the rules, relative to the root ('' for the root), with a trailing slash when not the root. */
  base: string;
  rules: Ignore;
}

export interface FileList {
  files: string[];
  skippedLinks: string[];
}

function readRules(file: string): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

/** The files of `root` to upload, relative POSIX paths, sorted. */
export function listFiles(root: string, options: { includeEnv?: boolean } = {}): FileList {
  // Root rules: .gitignore first, then what is always left out, then .slipwayignore (which may re-include).
  const top = ignore();
  const gitignore = readRules(path.join(root, '.gitignore'));
  if (gitignore) top.add(gitignore);
  top.add(ALWAYS_LEFT_OUT);
  if (!options.includeEnv) top.add(ENV_FILES);
  const slipwayignore = readRules(path.join(root, '.slipwayignore'));
  if (slipwayignore) top.add(slipwayignore);

  const files: string[] = [];
  const skippedLinks: string[] = [];
  const walk = (dir: string, rel: string, scopes: Scope[]) => {
    const nested = rel ? readRules(path.join(dir, '.gitignore')) : null;
    const here = nested ? [...scopes, { base: rel, rules: ignore().add(nested) }] : scopes;
    const ignored = (p: string) => top.ignores(p) || here.some((s) => p.startsWith(s.base) && s.rules.ignores(p.slice(s.base.length)));
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = rel + entry.name;
      if (entry.isSymbolicLink()) {
        if (!ignored(p)) skippedLinks.push(p);
      } else if (entry.isDirectory()) {
        if (!ignored(`${p}/`)) walk(path.join(dir, entry.name), `${p}/`, here);
      } else if (entry.isFile() && !ignored(p)) {
        files.push(p);
      }
    }
  };
  walk(root, '', []);
  return { files, skippedLinks };
}

export interface Archive {
  file: string;
  bytes: number;
  files: number;
  skippedLinks: string[];
}

/** Zips the folder's files into a temporary .zip; the caller removes `path.dirname(file)`. */
export async function zipFolder(root: string, options: { includeEnv?: boolean } = {}): Promise<Archive> {
  const { files, skippedLinks } = listFiles(root, options);
  const zip = new yazl.ZipFile();
  for (const f of files) {
    const info = await stat(path.join(root, f));
    zip.addFile(path.join(root, f), f, { mtime: info.mtime, mode: info.mode });
  }
  zip.end();
  const dir = await mkdtemp(path.join(tmpdir(), 'slipway-deploy-'));
  const file = path.join(dir, 'upload.zip');
  await pipeline(zip.outputStream, createWriteStream(file));
  return { file, bytes: (await stat(file)).size, files: files.length, skippedLinks };
}
