// Accounts and sessions: signup, login, logout, the signed-in user.
import { Timestamp, Ok, Uuid } from '../common';
import type { Resource } from '../resource';

export const Email = { type: 'string', format: 'email', minLength: 3, maxLength: 254, description: 'compared case-insensitively' } as const;

export const User = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'email', 'name', 'createdAt'],
  properties: { id: Uuid, email: { type: 'string' }, name: { type: 'string' }, createdAt: Timestamp },
} as const;

export const UserEnvelope = {
  type: 'object',
  additionalProperties: false,
  required: ['user'],
  properties: { user: User },
} as const;

export const SignupRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password', 'name'],
  properties: {
    email: Email,
    password: { type: 'string', minLength: 10, maxLength: 256, description: 'at least 10 characters' },
    name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', description: '1 to 100 characters, not only spaces' },
  },
} as const;

export const LoginRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: { email: Email, password: { type: 'string', minLength: 1, maxLength: 256 } },
} as const;

export const AUTH = {
  tag: { name: 'auth', description: 'accounts and sessions' },
  schemas: { User, UserEnvelope, SignupRequest, LoginRequest },
  operations: {
    signup: {
      method: 'post',
      path: '/v1/auth/signup',
      tag: 'auth',
      summary: 'Create an account and sign in',
      description: 'Sets the `svc_session` cookie (HttpOnly, SameSite=Lax, Path=/, Secure over https, 30 days).',
      auth: 'public',
      body: SignupRequest,
      success: { status: 201, description: 'the new user; the session cookie is set', schema: UserEnvelope, setsCookie: true },
      errors: { 409: ['email_taken'] },
    },
    login: {
      method: 'post',
      path: '/v1/auth/login',
      tag: 'auth',
      summary: 'Sign in with email and password',
      description:
        'Failed attempts are counted per email and per client IP; past the limit the answer is 429 `too_many_attempts` ' +
        'with `Retry-After` (seconds), even for the right password, until the window ends.',
      auth: 'public',
      body: LoginRequest,
      success: { status: 200, description: 'the user; the session cookie is set', schema: UserEnvelope, setsCookie: true },
      errors: { 401: ['invalid_credentials'], 429: ['too_many_attempts'] },
    },
    logout: {
      method: 'post',
      path: '/v1/auth/logout',
      tag: 'auth',
      summary: 'Sign out: the session is revoked server-side and the cookie cleared',
      auth: 'session',
      success: { status: 200, description: 'signed out', schema: Ok, setsCookie: true },
    },
    getMe: {
      method: 'get',
      path: '/v1/auth/me',
      tag: 'auth',
      summary: 'The signed-in user (with a token: its creator)',
      auth: 'any',
      success: { status: 200, description: 'the user', schema: UserEnvelope },
    },
  },
} as const satisfies Resource;
