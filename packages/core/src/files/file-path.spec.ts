import { AppError } from '../errors';
import { isValidFilePath, MAX_FILE_PATH_CHARS, parseFilePath } from './file-path';

const code = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof AppError ? e.code : 'other';
  }
};

describe('parseFilePath', () => {
  it.each([
    ['index.js', ['index.js']],
    ['src/app/main.py', ['src', 'app', 'main.py']],
    ['.env', ['.env']],
    ['..hidden', ['..hidden']],
    ['a..b/...', ['a..b', '...']],
    ['%2e%2e', ['%2e%2e']],
    ['with space/é ü 文件.txt', ['with space', 'é ü 文件.txt']],
    ['node_modules/.bin/tsc', ['node_modules', '.bin', 'tsc']],
  ])('accepts %j', (path, segments) => {
    expect(parseFilePath(path, { allowRoot: false })).toEqual(segments);
  });

  it('accepts the empty path only where the root is allowed', () => {
    expect(parseFilePath('', { allowRoot: true })).toEqual([]);
    expect(code(() => parseFilePath('', { allowRoot: false }))).toBe('invalid_path');
  });

  it.each([
    ['..'],
    ['.'],
    ['../etc/passwd'],
    ['a/../../etc'],
    ['a/./b'],
    ['a/..'],
    ['/etc/passwd'],
    ['/'],
    ['a/'],
    ['a//b'],
    ['//'],
    ['a\\b'],
    ['..\\..\\etc'],
    ['a\u0000b'],
    ['a\nb'],
    ['a\tb'],
    ['\u001f'],
    ['a\u007fb'],
    ['x'.repeat(256)],
  ])('refuses %j with invalid_path', (path) => {
    expect(code(() => parseFilePath(path, { allowRoot: true }))).toBe('invalid_path');
  });

  it('counts characters, not bytes, against the 1,024 limit', () => {
    const segment = 'é'.repeat(100);
    const exactly = Array.from({ length: 10 }, () => segment).join('/') + '/' + 'é'.repeat(MAX_FILE_PATH_CHARS - 1010);
    expect([...exactly].length).toBe(MAX_FILE_PATH_CHARS);
    expect(isValidFilePath(exactly, { allowRoot: false })).toBe(true);
    expect(isValidFilePath(`${exactly}x`, { allowRoot: false })).toBe(false);
  });

  it('refuses what is not a string', () => {
    for (const v of [undefined, null, 1, ['a'], { a: 1 }]) expect(code(() => parseFilePath(v, { allowRoot: true }))).toBe('invalid_path');
  });
});
