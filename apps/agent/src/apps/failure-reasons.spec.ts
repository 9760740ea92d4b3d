import { engineMessage, engineUnreachable, pullFailure, rolloutFailure } from './failure-reasons';

// What a user reads must say what happened to the app, never repeat the engine.
const ENGINE = /HTTP code|unexpected|OCI|runc|container_linux|daemon|driver|pool|ambiguous|sha256:/i;

describe('failure reasons', () => {
  it("takes the engine's message out of dockerode's wrapper", () => {
    expect(engineMessage({ message: '(HTTP code 400) unexpected - 2 matches found based on name: network slipway-ws-1 is ambiguous' })).toBe(
      '2 matches found based on name: network slipway-ws-1 is ambiguous',
    );
    expect(engineMessage({ message: 'x', json: { message: 'no such image' } })).toBe('no such image');
  });

  it('tells an engine that cannot be reached (retried) from an answer about the app', () => {
    expect(engineUnreachable(Object.assign(new Error('connect ECONNREFUSED /var/run/docker.sock'), { code: 'ECONNREFUSED', syscall: 'connect' }))).toBe(true);
    expect(engineUnreachable(Object.assign(new Error('connect ENOENT /var/run/docker.sock'), { code: 'ENOENT', syscall: 'connect' }))).toBe(true);
    expect(engineUnreachable({ message: '(HTTP code 404) no such image', statusCode: 404 })).toBe(false);
  });

  it('says why an image could not be pulled', () => {
    expect(pullFailure('acme/web:1', 'pull access denied for acme/web, repository does not exist or may require docker login').message).toBe(
      'The image acme/web:1 could not be pulled: the registry refused access to it (is it private?)',
    );
    expect(pullFailure('acme/web:9', 'manifest for acme/web:9 not found: manifest unknown').message).toMatch(/no registry has it/);
    expect(pullFailure('acme/web:1', 'Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host').message).toMatch(/no registry answered/);
    expect(pullFailure('acme/web:1', 'dial tcp: i/o timeout').code).toBe('rollout_failed');
  });

  it("fails at once for causes in the app's image, and retries the server's own", () => {
    const missing = rolloutFailure('container', 'OCI runtime create failed: container_linux.go:380: starting container process caused: exec: "node": executable file not found in $PATH: unknown');
    expect(missing.code).toBe('rollout_failed');
    expect(missing.message).toMatch(/start command was not found/);
    const engine = rolloutFailure('network', 'could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network');
    expect(engine.code).toBe('internal');
    expect(engine.message).toBe("The server could not set up this workspace's network; the server's message is in the deployment log");
    for (const step of ['image', 'folder', 'network', 'container', 'route'] as const) expect(rolloutFailure(step, 'driver failed programming external connectivity').message).not.toMatch(ENGINE);
  });
});
