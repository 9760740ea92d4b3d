import { createHmac, timingSafeEqual } from 'node:crypto';

/** `sha256=<hex>` of the raw body under the webhook secret, as GitHub computes `X-Hub-Signature-256`. */
export function webhookSignature(secret: string, body: Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Compares in constant time over the raw bytes, before anything of the body is parsed. */
export function isValidWebhookSignature(secret: string, body: Uint8Array, header: string | undefined): boolean {
  if (!secret || !header || !/^sha256=[0-9a-f]{64}$/i.test(header)) return false;
  const expected = Buffer.from(webhookSignature(secret, body));
  const given = Buffer.from(header.toLowerCase());
  return expected.length === given.length && timingSafeEqual(expected, given);
}
