import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed, and never shows the plain text in the sealed form', () => {
    const sealed = box.seal('postgres://user:hunter2@db.internal/app');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('hunter2');
    expect(box.open(sealed)).toBe('postgres://user:hunter2@db.internal/app');
    expect(box.open(box.seal(''))).toBe('');
  });

  it('uses a fresh IV per value, so equal secrets do not look equal at rest', () => {
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('refuses a changed byte, another key, and anything not sealed', () => {
    const sealed = box.seal('secret value');
    const [v, iv, tag, data] = sealed.split('.');
    const flipped = Buffer.from(data!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open('plain text')).toThrow(/Not a sealed value/);
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});
