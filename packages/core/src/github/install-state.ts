import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long an install URL's `state` is accepted. */
export const INSTALL_STATE_TTL_MS = 15 * 60 * 1000;

/**
 * The `state` of the GitHub App install flow: names the workspace that asked, expires, and is signed (HMAC-SHA256
 * under a key of the platform's), so the setup callback needs no trust in whoever calls it. `v1.<payload>.<mac>`,
 * payload base64url of `{ w, e, n }` (workspace, expiry in ms, nonce).
 */
export class InstallStates {
  private readonly key: Buffer;

  constructor(secret: string | Buffer) {
    this.key = createHmac('sha256', secret).update('slipway github install state v1').digest();
  }

  issue(workspaceId: string, nowMs: number): { state: string; expiresAt: Date } {
    const e = nowMs + INSTALL_STATE_TTL_MS;
    const payload = Buffer.from(JSON.stringify({ w: workspaceId, e, n: randomBytes(12).toString('base64url') })).toString('base64url');
    return { state: `v1.${payload}.${this.mac(payload)}`, expiresAt: new Date(e) };
  }

  /** The workspace the state names; null when it is forged, malformed or expired. */
  verify(state: string, nowMs: number): { workspaceId: string } | null {
    const m = /^v1\.([A-Za-z0-9_-]{1,512})\.([A-Za-z0-9_-]{43})$/.exec(state);
    if (!m) return null;
    const expected = Buffer.from(this.mac(m[1]!));
    const given = Buffer.from(m[2]!);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const body = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as { w?: unknown; e?: unknown };
      if (typeof body.w !== 'string' || typeof body.e !== 'number' || body.e < nowMs) return null;
      return { workspaceId: body.w };
    } catch {
      return null;
    }
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
