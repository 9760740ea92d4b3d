import { AppError } from '../errors';
import { normalizeHostname } from './hostname';

const reason = (name: string) => {
  try {
    normalizeHostname(name, 'apps.example.net');
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('invalid_hostname');
    return (e as AppError).details?.[0]?.reason;
  }
  return 'accepted';
};

describe('normalizeHostname', () => {
  it('lowercases, drops the trailing dot and stores internationalised names in punycode', () => {
    expect(normalizeHostname('WWW.Example.COM.', 'apps.example.net')).toEqual({ ascii: 'www.example.com', unicode: 'www.example.com' });
    expect(normalizeHostname('Bücher.example', 'apps.example.net')).toEqual({ ascii: 'xn--bcher-kva.example', unicode: 'bücher.example' });
  });

  it('says which rule a refused name breaks', () => {
    expect(reason('203.0.113.9')).toBe('ip_address');
    expect(reason('[2001:db8::1]')).toBe('ip_address');
    expect(reason('localhost')).toBe('localhost');
    expect(reason('app.localhost')).toBe('localhost');
    expect(reason('intranet')).toBe('single_label');
    expect(reason('*.example.com')).toBe('wildcard');
    expect(reason('shop.apps.example.net')).toBe('apps_domain');
    expect(reason('apps.example.net')).toBe('apps_domain');
    expect(reason('exa mple.com')).toBe('invalid');
    expect(reason('-bad.example.com')).toBe('invalid');
    expect(reason('a..b.com')).toBe('invalid');
    expect(reason(`${'a'.repeat(64)}.com`)).toBe('invalid');
    expect(reason('example.123')).toBe('invalid');
    expect(reason('shop.example.com')).toBe('accepted');
  });
});
