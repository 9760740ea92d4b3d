import { createHmac } from 'node:crypto';
import { createWorkspace, signUp, uniqueEmail } from '@slipway/testing';
import { startTestApi, TEST_PUBLIC_ORIGIN, TEST_SESSION_KEY, type TestApi } from '@slipway/testing/api';

describe('accounts and sessions (real PostgreSQL and Redis, through HTTP)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ loginLimits: { perEmail: 3, perIp: 6, windowSeconds: 120 } });
  });
  afterAll(() => api.close());

  describe('POST /v1/auth/signup', () => {
    it('creates the account, answers 201 { user } and sets the session cookie with its flags', async () => {
      const c = api.client();
      const email = uniqueEmail('Signup');
      const res = await c.post('/v1/auth/signup', { email: email.toUpperCase(), password: 'correct horse battery', name: ' Ada ' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        user: { id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/), email: email.toLowerCase(), name: 'Ada', createdAt: expect.stringMatching(/\.\d{3}Z$/) },
      });
      const cookie = res.headers.getSetCookie().find((l) => l.startsWith('svc_session='))!;
      expect(cookie).toMatch(/; Path=\//);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Lax/);
      expect(cookie).not.toMatch(/Secure/); // the test public URL is http
      const expires = new Date(/Expires=([^;]+)/.exec(cookie)![1]!).getTime();
      expect(expires - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);
      expect((await c.get('/v1/auth/me')).body.user.email).toBe(email.toLowerCase());
    });

    it('stores an argon2id hash of the password and only a keyed hash of the session token', async () => {
      const c = api.client();
      const { user } = await signUp(c);
      const row = await api.db.user.findUniqueOrThrow({ where: { id: user.id } });
      expect(row.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      const token = c.cookie('svc_session')!;
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      const sessions = await api.db.session.findMany({ where: { userId: user.id } });
      expect(sessions).toHaveLength(1);
      expect(Buffer.from(sessions[0]!.tokenHash).equals(createHmac('sha256', TEST_SESSION_KEY).update(token).digest())).toBe(true);
      expect(JSON.stringify(sessions)).not.toContain(token);
    });

    it('answers 409 email_taken for an email already used, whatever its case', async () => {
      const { email } = await signUp(api.client());
      const res = await api.client().post('/v1/auth/signup', { email: email.toUpperCase(), password: 'another password', name: 'B' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('email_taken');
    });

    it('answers 400 validation_failed listing each failing field, unknown fields included', async () => {
      const res = await api.client().post('/v1/auth/signup', { email: 'nope', password: 'short', name: '', role: 'admin' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      const fields = res.body.error.details.map((d: { field: string }) => d.field);
      expect(fields).toEqual(expect.arrayContaining(['/email', '/password', '/name', '/role']));
      expect(res.body.error.details).toContainEqual({ field: '/role', message: 'is not allowed' });
      expect(res.body.error.details).toContainEqual({ field: '/password', message: 'must NOT have fewer than 10 characters' });
    });

    it('refuses a foreign Origin (login CSRF), and accepts none (command-line clients)', async () => {
      const body = { email: uniqueEmail(), password: 'long enough password', name: 'C' };
      const foreign = await api.client().withOrigin('https://evil.example').post('/v1/auth/signup', body);
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.code).toBe('csrf_rejected');
      expect((await api.client().withOrigin(null).post('/v1/auth/signup', body)).status).toBe(201);
    });
  });

  describe('POST /v1/auth/login', () => {
    it('signs in with the right password (any email case) and sets a new session cookie', async () => {
      const { email, password, user } = await signUp(api.client());
      const c = api.client();
      const res = await c.post('/v1/auth/login', { email: email.toUpperCase(), password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ user });
      expect(c.cookie('svc_session')).toBeDefined();
      expect((await c.get('/v1/auth/me')).body).toEqual({ user });
    });

    it('answers 401 invalid_credentials for a wrong password or an unknown email, the same way', async () => {
      const { email } = await signUp(api.client());
      const wrong = await api.client().post('/v1/auth/login', { email, password: 'wrong password!' }, { headers: { 'x-forwarded-for': '198.51.100.1' } });
      const unknown = await api.client().post('/v1/auth/login', { email: uniqueEmail(), password: 'whatever12' }, { headers: { 'x-forwarded-for': '198.51.100.1' } });
      expect([wrong.status, unknown.status]).toEqual([401, 401]);
      expect(wrong.body).toEqual(unknown.body);
      expect(wrong.body.error.code).toBe('invalid_credentials');
      expect(wrong.headers.get('set-cookie')).toBeNull();
    });

    it('throttles one email after 3 failures: 429 too_many_attempts with Retry-After, even with the right password', async () => {
      const { email, password } = await signUp(api.client());
      for (let i = 0; i < 3; i++) {
        const ip = `203.0.113.${10 + i}`; // different IPs: only the email count grows past its limit
        expect((await api.client().post('/v1/auth/login', { email, password: 'wrong password' }, { headers: { 'x-forwarded-for': ip } })).status).toBe(401);
      }
      const blocked = await api.client().post('/v1/auth/login', { email, password }, { headers: { 'x-forwarded-for': '203.0.113.99' } });
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe('too_many_attempts');
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(120);
      // Another account from the same IP is not affected.
      const other = await signUp(api.client());
      expect((await api.client().post('/v1/auth/login', { email: other.email, password: other.password }, { headers: { 'x-forwarded-for': '203.0.113.99' } })).status).toBe(200);
    });

    it('throttles one IP after 6 failures across emails', async () => {
      const ip = '192.0.2.77';
      for (let i = 0; i < 6; i++) {
        expect((await api.client().post('/v1/auth/login', { email: uniqueEmail(), password: 'wrong password' }, { headers: { 'x-forwarded-for': ip } })).status).toBe(401);
      }
      const { email, password } = await signUp(api.client());
      const blocked = await api.client().post('/v1/auth/login', { email, password }, { headers: { 'x-forwarded-for': ip } });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await api.client().post('/v1/auth/login', { email, password }, { headers: { 'x-forwarded-for': '192.0.2.78' } })).status).toBe(200);
    });
  });

  describe('POST /v1/auth/logout', () => {
    it('revokes the session server-side: the old cookie answers 401 afterwards', async () => {
      const c = api.client();
      await signUp(c);
      const old = c.cookie('svc_session')!;
      const res = await c.post('/v1/auth/logout');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
      expect(res.headers.getSetCookie().join()).toMatch(/svc_session=;/);
      expect(c.cookie('svc_session')).toBeUndefined();

      const replay = api.client();
      replay.setCookie('svc_session', old);
      const me = await replay.get('/v1/auth/me');
      expect(me.status).toBe(401);
      expect(me.body.error.code).toBe('unauthorized');
      expect((await replay.get('/v1/workspaces')).status).toBe(401);
      expect((await replay.post('/v1/auth/logout')).status).toBe(401);
    });

    it('needs the session cookie: a bearer token answers 401 session_required', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      const token = (await c.post(`/v1/workspaces/${w.id}/tokens`, { name: 'ci' })).body.token;
      const res = await c.withBearer(token).post('/v1/auth/logout');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('session_required');
    });
  });

  describe('GET /v1/auth/me', () => {
    it('answers 401 unauthorized without a credential or with a made-up one', async () => {
      const none = await api.client().get('/v1/auth/me');
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('unauthorized');
      const forged = api.client();
      forged.setCookie('svc_session', 'x'.repeat(43));
      expect((await forged.get('/v1/auth/me')).status).toBe(401);
      expect((await api.client().get('/v1/auth/me', { headers: { authorization: 'Bearer svc_madeup' } })).status).toBe(401);
      expect((await api.client().get('/v1/auth/me', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    });

    it("answers with the token's creator for a bearer token", async () => {
      const c = api.client();
      const { user } = await signUp(c);
      const w = await createWorkspace(c);
      const token = (await c.post(`/v1/workspaces/${w.id}/tokens`, { name: 'me' })).body.token;
      expect((await c.withBearer(token).get('/v1/auth/me')).body).toEqual({ user });
    });

    it('answers 401 for an expired session', async () => {
      const c = api.client();
      const { user } = await signUp(c);
      await api.db.session.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expect((await c.get('/v1/auth/me')).status).toBe(401);
    });
  });

  describe('CSRF on cookie-authenticated changes', () => {
    it('refuses a foreign or missing Origin with 403 csrf_rejected, and accepts the public origin or its Referer', async () => {
      const c = api.client();
      await signUp(c);
      const foreign = await c.withOrigin('https://evil.example').post('/v1/workspaces', { name: 'x' });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.code).toBe('csrf_rejected');
      const missing = await c.withOrigin(null).post('/v1/workspaces', { name: 'x' });
      expect(missing.status).toBe(403);
      expect(missing.body.error.code).toBe('csrf_rejected');
      const referer = await c.withOrigin(null).post('/v1/workspaces', { name: 'via referer' }, { headers: { referer: `${TEST_PUBLIC_ORIGIN}/dashboard` } });
      expect(referer.status).toBe(201);
      // Reads need no Origin.
      expect((await c.withOrigin(null).get('/v1/workspaces')).status).toBe(200);
    });

    it('does not apply to bearer tokens, which a browser never attaches by itself', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      const token = (await c.post(`/v1/workspaces/${w.id}/tokens`, { name: 'ci' })).body.token;
      const res = await c.withBearer(token).withOrigin(null).patch(`/v1/workspaces/${w.id}`, { name: 'renamed by token' });
      expect(res.status).toBe(200);
    });
  });
});
