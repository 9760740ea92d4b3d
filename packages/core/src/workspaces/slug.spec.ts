import { slugCandidate, slugify, WORKSPACE_SLUG_MAX } from './slug';

describe('workspace slugs', () => {
  it('makes a lowercase DNS label of the name', () => {
    expect(slugify('Acme Corp')).toBe('acme-corp');
    expect(slugify('  Crème Brûlée & Co.  ')).toBe('creme-brulee-co');
    expect(slugify('__A__B__')).toBe('a-b');
    expect(slugify('日本語')).toBe('workspace');
    expect(slugify('---')).toBe('workspace');
  });

  it('leaves room for a suffix and never ends with a hyphen', () => {
    const s = slugify('a'.repeat(24) + ' bbbbbbbbbb');
    expect(s.length).toBeLessThanOrEqual(WORKSPACE_SLUG_MAX - 5);
    expect(s).not.toMatch(/-$/);
    expect(slugCandidate(s, 9).length).toBeLessThanOrEqual(WORKSPACE_SLUG_MAX);
  });

  it('suffixes in order, then randomly', () => {
    expect([0, 1, 2, 4].map((n) => slugCandidate('acme', n))).toEqual(['acme', 'acme-2', 'acme-3', 'acme-5']);
    expect(slugCandidate('acme', 5)).toMatch(/^acme-[0-9a-f]{4}$/);
  });

  it('always matches the slug pattern of the API', () => {
    for (const name of ['X', 'Ünïcödé wörkspace', '123 go', 'a-b-c-', 'very '.repeat(20)]) {
      for (const attempt of [0, 3, 7]) expect(slugCandidate(slugify(name), attempt)).toMatch(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/);
    }
  });
});
