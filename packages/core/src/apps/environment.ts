import type { SecretBox } from '../auth/secret-box';
import type { AppScope, EnvRepository } from './app.ports';

/** Plain values of every variable of an app, secrets opened: only for the container's environment. */
export async function openEnvironment(env: EnvRepository, secrets: SecretBox, scope: AppScope): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const v of await env.list(scope)) out[v.key] = v.secret ? secrets.open(v.value) : v.value;
  return out;
}
