import type { CookieOptions, Response } from 'express';

export const SESSION_COOKIE = 'svc_session';

/** HttpOnly, SameSite=Lax, Path=/, Secure when the public URL is https (API-DECISIONS, Authentication). */
export function sessionCookieOptions(secure: boolean): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure };
}

export function setSessionCookie(res: Response, token: string, expiresAt: Date, secure: boolean): void {
  res.cookie(SESSION_COOKIE, token, { ...sessionCookieOptions(secure), expires: expiresAt });
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(SESSION_COOKIE, sessionCookieOptions(secure));
}
