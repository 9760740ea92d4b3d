import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SETTINGS } from './settings';

// The README's settings table must name every setting the loader reads, and nothing else.
describe('README settings table', () => {
  it('lists exactly the settings of settings.ts', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    const table = /<!-- settings:start -->([\s\S]*)<!-- settings:end -->/.exec(readme)![1]!;
    const listed = [...table.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual(SETTINGS.map((s) => s.env));
  });
});
