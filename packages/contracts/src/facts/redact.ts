/** A message (an engine's stderr, a failure reason) without any of the secrets in it: each replaced by `********`. */
export function redact(text: string, secrets: readonly string[]): string {
  return secrets.filter(Boolean).reduce((t, s) => t.split(s).join('********'), text);
}
