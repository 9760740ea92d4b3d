import { createVerify, generateKeyPairSync } from 'node:crypto';
import { appJwt } from './app-jwt';
import { InstallStates, INSTALL_STATE_TTL_MS } from './install-state';
import { isValidWebhookSignature, webhookSignature } from './webhook-signature';

describe('appJwt', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const now = Date.UTC(2026, 10, 25, 0, 0, 0);
  const parts = (jwt: string) => jwt.split('.').map((p, i) => (i < 2 ? JSON.parse(Buffer.from(p, 'base64url').toString()) : p));

  it('is RS256, signed with the App key, iat 60 s back, exp 9 minutes ahead, iss the numeric id', () => {
    const jwt = appJwt('123456', privateKey, now);
    const [header, claims] = parts(jwt);
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(claims).toEqual({ iat: now / 1000 - 60, exp: now / 1000 + 540, iss: 123456 });
    const [h, c, sig] = jwt.split('.');
    const v = createVerify('RSA-SHA256');
    v.update(`${h}.${c}`);
    expect(v.verify(publicKey, Buffer.from(sig!, 'base64url'))).toBe(true);
  });

  it('sends a client id (not numeric) as a string', () => {
    expect(parts(appJwt('Iv1.abc', privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, now))[1].iss).toBe('Iv1.abc');
  });
});

describe('InstallStates', () => {
  const states = new InstallStates('platform secret');
  const ws = '01936f3e-8a2b-7c4d-9e0f-123456789abc';
  const now = 1_800_000_000_000;

  it('names the workspace until it expires', () => {
    const { state, expiresAt } = states.issue(ws, now);
    expect(expiresAt.getTime()).toBe(now + INSTALL_STATE_TTL_MS);
    expect(states.verify(state, now + 1000)).toEqual({ workspaceId: ws });
    expect(states.verify(state, now + INSTALL_STATE_TTL_MS + 1)).toBeNull();
  });

  it('refuses a state of another key, a changed payload and garbage', () => {
    const { state } = states.issue(ws, now);
    expect(new InstallStates('other secret').verify(state, now)).toBeNull();
    const [v, payload, mac] = state.split('.');
    const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), w: 'another' })).toString('base64url');
    expect(states.verify(`${v}.${changed}.${mac}`, now)).toBeNull();
    for (const bad of ['', 'v1', 'v1..', `v2.${payload}.${mac}`, `${state}x`]) expect(states.verify(bad, now)).toBeNull();
  });

  it('gives a fresh state each time', () => {
    expect(states.issue(ws, now).state).not.toBe(states.issue(ws, now).state);
  });
});

describe('webhook signatures', () => {
  const body = Buffer.from('{"zen":"Design for failure."}');

  it('is sha256=<hex HMAC of the raw bytes>, as GitHub sends it', () => {
    expect(webhookSignature('It\'s a Secret to Everybody', Buffer.from('Hello, World!'))).toBe(
      // GitHub's documented example (docs: "Validating webhook deliveries").
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it('accepts the right signature only', () => {
    const sig = webhookSignature('s3cret', body);
    expect(isValidWebhookSignature('s3cret', body, sig)).toBe(true);
    expect(isValidWebhookSignature('s3cret', body, sig.toUpperCase().replace('SHA256=', 'sha256='))).toBe(true);
    expect(isValidWebhookSignature('other', body, sig)).toBe(false);
    expect(isValidWebhookSignature('s3cret', Buffer.from(`${body.toString()} `), sig)).toBe(false);
    expect(isValidWebhookSignature('s3cret', body, undefined)).toBe(false);
    expect(isValidWebhookSignature('s3cret', body, 'sha1=abc')).toBe(false);
    expect(isValidWebhookSignature('', body, webhookSignature('', body))).toBe(false);
  });
});
