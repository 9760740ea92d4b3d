import type { AuthService } from '@slipway/core';
import type { Request } from 'express';
import type { HandlerTable } from '../http/operations';
import { clearSessionCookie, setSessionCookie } from '../http/session-cookie';

const meta = (req: Request) => ({ ip: req.ip ?? 'unknown', userAgent: req.get('user-agent') ?? null });

export function authRoutes(s: { auth: AuthService }, options: { secureCookies: boolean }): HandlerTable {
  return {
    signup: async ({ body, req, res }) => {
      const session = await s.auth.signup(body, meta(req));
      setSessionCookie(res, session.token, session.expiresAt, options.secureCookies);
      return { user: session.user };
    },
    login: async ({ body, req, res }) => {
      const session = await s.auth.login(body, meta(req));
      setSessionCookie(res, session.token, session.expiresAt, options.secureCookies);
      return { user: session.user };
    },
    logout: async ({ actor, res }) => {
      await s.auth.logout(actor);
      clearSessionCookie(res, options.secureCookies);
      return { ok: true };
    },
    getMe: async ({ actor }) => ({ user: await s.auth.me(actor) }),
  };
}
