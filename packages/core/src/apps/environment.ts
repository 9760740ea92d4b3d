import type { SecretBox } from '../auth/secret-box';
import type { AppScope, EnvRepository } from './app.ports';

/** Plain values of every variable of an app, secrets opened: only for the container's environment. */
export async function openEnvironment(env: EnvRepository, secrets: SecretBox, scope: AppScope): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const v of await env.list(scope)) out[v.key] = v.secret ? secrets.open(v.value) : v.value;
  return out;
}

/** The app's variables for its build command, secrets opened and marked (the agent gives them as a build secret). */
export async function openBuildVariables(env: EnvRepository, secrets: SecretBox, scope: AppScope): Promise<{ key: string; value: string; secret: boolean }[]> {
  return (await env.list(scope)).map((v) => ({ key: v.key, value: v.secret ? secrets.open(v.value) : v.value, secret: v.secret }));
}
