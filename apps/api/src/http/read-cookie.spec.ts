import { readCookie } from './operations';

describe('readCookie', () => {
  it('finds one cookie among others, trimmed, unquoted and decoded', () => {
    expect(readCookie('a=1; svc_session=abc-_XYZ; b=2', 'svc_session')).toBe('abc-_XYZ');
    expect(readCookie('svc_session="quoted"', 'svc_session')).toBe('quoted');
    expect(readCookie('svc_session=a%3Db', 'svc_session')).toBe('a=b');
    expect(readCookie('svc_session=bad%zz', 'svc_session')).toBe('bad%zz');
  });

  it('answers undefined when the cookie is absent or only a prefix matches', () => {
    expect(readCookie(undefined, 'svc_session')).toBeUndefined();
    expect(readCookie('', 'svc_session')).toBeUndefined();
    expect(readCookie('svc_session_old=1; xsvc_session=2', 'svc_session')).toBeUndefined();
    expect(readCookie('novalue', 'svc_session')).toBeUndefined();
  });
});
