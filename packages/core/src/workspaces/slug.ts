import { randomBytes } from 'node:crypto';

/** Workspace slugs are DNS labels of at most 30 characters (an app's subdomain is `<app>-<workspace>`). */
export const WORKSPACE_SLUG_MAX = 30;
const SUFFIX_ROOM = 5; // "-" and up to four characters

/** A lowercase DNS label from a display name: accents dropped, runs of anything else turned into one "-". */
export function slugify(name: string): string {
  const label = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, WORKSPACE_SLUG_MAX - SUFFIX_ROOM)
    .replace(/-+$/, '');
  return label || 'workspace';
}

/** The slug to try at `attempt` when the earlier ones were taken: base, base-2 … base-5, then random suffixes. */
export function slugCandidate(base: string, attempt: number): string {
  if (attempt === 0) return base;
  if (attempt < 5) return `${base}-${attempt + 1}`;
  return `${base}-${randomBytes(2).toString('hex')}`;
}
