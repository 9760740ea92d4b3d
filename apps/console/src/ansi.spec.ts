import { parseAnsi } from './ansi';

describe('parseAnsi (console build logs)', () => {
  it('keeps plain text as one run', () => {
    expect(parseAnsi('npm install')).toEqual([{ text: 'npm install', cls: '' }]);
  });

  it('colours, bold and resets become classes', () => {
    expect(parseAnsi('\x1b[1;32mok\x1b[0m done \x1b[91merr')).toEqual([
      { text: 'ok', cls: 'fg-2 b' },
      { text: ' done ', cls: '' },
      { text: 'err', cls: 'fg-9' },
    ]);
  });

  it('maps 256-colour and RGB to the 16 colours, drops other escapes', () => {
    expect(parseAnsi('\x1b[38;5;196mred\x1b[39m\x1b[2K\x1b]0;title\x07x')).toEqual([
      { text: 'red', cls: 'fg-9' },
      { text: 'x', cls: '' },
    ]);
    expect(parseAnsi('\x1b[38;2;0;255;0mg')).toEqual([{ text: 'g', cls: 'fg-10' }]);
  });
});
