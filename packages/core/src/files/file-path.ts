import { AppError } from '../errors';

/** Longest `path` the files API accepts, in characters (spec part 8). */
export const MAX_FILE_PATH_CHARS = 1024;
/** Longest segment in UTF-8 bytes: what Linux file systems store (NAME_MAX). */
export const MAX_SEGMENT_BYTES = 255;
/** Entries a folder listing returns at most (spec part 8); `truncated` says there were more. */
export const MAX_LISTING_ENTRIES = 1000;

// U+0000 to U+001F and U+007F (spec 4.4), and the backslash.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f\\]/;

/**
 * The segments of a files-API `path`, or AppError('invalid_path'). The rules of spec 4.4 and API-DECISIONS:
 * segments separated by `/`, each non-empty, no backslash, no control characters, no leading or trailing slash,
 * no `.` or `..` segment, at most 1,024 characters. The empty path (the project folder itself) is allowed only
 * where `allowRoot` says so (listing); an empty result then means the root.
 * This is the syntax only: the agent still resolves the segments one by one inside the folder and refuses any
 * symlink that leads out of it.
 */
export function parseFilePath(path: unknown, options: { allowRoot: boolean }): string[] {
  if (typeof path !== 'string') throw invalidPath('The path must be a string');
  if (path === '') {
    if (options.allowRoot) return [];
    throw invalidPath('The path must name a file or folder inside the project folder, not the folder itself');
  }
  if ([...path].length > MAX_FILE_PATH_CHARS) throw invalidPath(`The path is longer than ${MAX_FILE_PATH_CHARS} characters`);
  if (FORBIDDEN.test(path)) throw invalidPath('The path contains a backslash or a control character');
  if (path.startsWith('/')) throw invalidPath('The path is relative to the project folder: no leading slash');
  if (path.endsWith('/')) throw invalidPath('The path has a trailing slash');
  const segments = path.split('/');
  for (const s of segments) {
    if (s === '') throw invalidPath('The path has an empty segment (two slashes in a row)');
    if (s === '.' || s === '..') throw invalidPath('The path has a "." or ".." segment');
    if (Buffer.byteLength(s, 'utf8') > MAX_SEGMENT_BYTES) throw invalidPath(`A segment of the path is longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
  return segments;
}

/** Whether `path` is well-formed (see parseFilePath). */
export function isValidFilePath(path: unknown, options: { allowRoot: boolean }): boolean {
  try {
    parseFilePath(path, options);
    return true;
  } catch {
    return false;
  }
}

const invalidPath = (message: string) => new AppError('invalid_path', message);
