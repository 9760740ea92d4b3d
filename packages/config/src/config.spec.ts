import { ConfigError, loadConfig, readGithubApp } from './index';

const base = { DATABASE_URL: 'postgresql://u:p@127.0.0.1:5432/db' };

describe('loadConfig', () => {
  it('fills defaults in development and freezes the result', () => {
    const config = loadConfig('control', base);
    expect(config.api.port).toBe(7070);
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
    expect(config.secrets.encryptionKey).toHaveLength(32);
    expect(Object.isFrozen(config.api)).toBe(true);
    expect(() => {
      (config.api as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it("reads the backups' time zone when first asked, not at load: ICU's data stays out of a process that never needs it (issue 34)", () => {
    const asked = jest.spyOn(Intl, 'DateTimeFormat');
    try {
      const config = loadConfig('agent', {});
      expect(asked).not.toHaveBeenCalled();
      expect(Object.isFrozen(config.backups)).toBe(true);
      expect(config.backups.timeZone).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone);
      expect(loadConfig('control', { ...base, SLIPWAY_BACKUP_TIMEZONE: 'Europe/Paris' }).backups.timeZone).toBe('Europe/Paris');
    } finally {
      asked.mockRestore();
    }
  });

  it("takes the boot id its supervisor gives, else makes one per load", () => {
    expect(loadConfig('control', { ...base, SLIPWAY_BOOT_ID: '0f6c2f1e-6b1d-4e55-9d4c-3f0d3c7a9b21' }).api.bootId).toBe('0f6c2f1e-6b1d-4e55-9d4c-3f0d3c7a9b21');
    const a = loadConfig('control', base).api.bootId;
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(loadConfig('control', base).api.bootId).not.toBe(a);
    expect(catchError(() => loadConfig('control', { ...base, SLIPWAY_BOOT_ID: 'no spaces; allowed' })).problems.join('\n')).toMatch(/SLIPWAY_BOOT_ID/);
  });

  it("puts the operator API's socket in the data folder unless told where, or nowhere (issue 32)", () => {
    expect(loadConfig('control', base).operator.socket).toBe('/var/lib/slipway/control/operator.sock');
    expect(loadConfig('control', { ...base, SLIPWAY_DATA_DIR: '/srv/cp/' }).operator.socket).toBe('/srv/cp/operator.sock');
    expect(loadConfig('control', { ...base, SLIPWAY_OPERATOR_SOCKET: '/run/slipway/operator.sock' }).operator.socket).toBe('/run/slipway/operator.sock');
    expect(loadConfig('control', { ...base, SLIPWAY_OPERATOR_SOCKET: 'off' }).operator.socket).toBeNull();
    expect(catchError(() => loadConfig('control', { ...base, SLIPWAY_OPERATOR_SOCKET: 'run/operator.sock' })).problems.join('\n')).toMatch(/SLIPWAY_OPERATOR_SOCKET/);
  });

  it('names each missing or malformed setting', () => {
    const thrown = catchError(() => loadConfig('control', { SLIPWAY_API_PORT: 'eighty' }));
    expect(thrown.problems.join('\n')).toMatch(/DATABASE_URL is required/);
    expect(thrown.problems.join('\n')).toMatch(/SLIPWAY_API_PORT must be a whole number/);
  });

  it('refuses missing and placeholder secrets in production', () => {
    const missing = catchError(() => loadConfig('control', { ...base, SLIPWAY_MODE: 'production' }));
    expect(missing.problems.some((p) => p.startsWith('SLIPWAY_SESSION_SECRET is required'))).toBe(true);
    expect(missing.problems.some((p) => p.startsWith('SLIPWAY_ENCRYPTION_KEY is required'))).toBe(true);

    const placeholder = catchError(() =>
      loadConfig('control', {
        ...base,
        SLIPWAY_MODE: 'production',
        SLIPWAY_SESSION_SECRET: 'dev-session-secret-not-for-production-use',
        SLIPWAY_ENCRYPTION_KEY: 'changeme',
      }),
    );
    expect(placeholder.problems.join('\n')).toMatch(/SLIPWAY_SESSION_SECRET is a placeholder/);
    expect(placeholder.problems.join('\n')).toMatch(/SLIPWAY_ENCRYPTION_KEY is a placeholder/);
  });

  it('accepts real secrets in production', () => {
    const config = loadConfig('control', {
      ...base,
      SLIPWAY_MODE: 'production',
      SLIPWAY_SESSION_SECRET: 'k8J2mQ9xR4tV7wY1zA3cE6gH0jL5nP8s',
      SLIPWAY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      SLIPWAY_PUBLIC_URL: 'https://api.example.com',
    });
    expect(config.api.secureCookies).toBe(true);
    expect(config.api.publicOrigin).toBe('https://api.example.com');
  });

  it('rejects a key of the wrong length', () => {
    const thrown = catchError(() => loadConfig('control', { ...base, SLIPWAY_ENCRYPTION_KEY: 'abcd' }));
    expect(thrown.problems.join('\n')).toMatch(/SLIPWAY_ENCRYPTION_KEY must be 32 bytes/);
  });

  it('reads the build limits of the agent, with defaults', () => {
    expect(loadConfig('agent', {}).agent.build).toEqual({ cpus: 1, memoryMb: 2048, timeoutMs: 900_000, concurrency: 1, diskMb: 5120, engine: 'buildkit', dockerCli: '/usr/bin/docker' });
    const config = loadConfig('agent', { SLIPWAY_BUILD_CPUS: '2', SLIPWAY_BUILD_TIMEOUT_S: '30', SLIPWAY_BUILD_CONCURRENCY: '3' });
    expect(config.agent.build).toEqual({ cpus: 2, memoryMb: 2048, timeoutMs: 30_000, concurrency: 3, diskMb: 5120, engine: 'buildkit', dockerCli: '/usr/bin/docker' });
    const thrown = catchError(() => loadConfig('agent', { SLIPWAY_BUILD_MEMORY_MB: '64' }));
    expect(thrown.problems.join('\n')).toMatch(/SLIPWAY_BUILD_MEMORY_MB is invalid/);
  });

  it('reads the GitHub App settings together, null without an app id (issue 16)', () => {
    expect(loadConfig('control', base).github).toBeNull();
    const github = { SLIPWAY_GITHUB_APP_ID: '123', SLIPWAY_GITHUB_PRIVATE_KEY_FILE: '/etc/slipway/github.pem', SLIPWAY_GITHUB_WEBHOOK_SECRET: 'whsec', SLIPWAY_GITHUB_APP_SLUG: 'slipway-test' };
    expect(loadConfig('control', { ...base, ...github }).github).toEqual({
      appId: '123',
      privateKeyFile: '/etc/slipway/github.pem',
      webhookSecret: 'whsec',
      slug: 'slipway-test',
      apiUrl: 'https://api.github.com',
      webUrl: 'https://github.com',
    });
    const ghes = loadConfig('control', { ...base, ...github, SLIPWAY_GITHUB_API_URL: 'https://ghe.example.com/api/v3' }).github;
    expect(ghes?.apiUrl).toBe('https://ghe.example.com/api/v3');
    const thrown = catchError(() => loadConfig('control', { ...base, SLIPWAY_GITHUB_APP_ID: '123' }));
    expect(thrown.problems.join('\n')).toMatch(/SLIPWAY_GITHUB_PRIVATE_KEY_FILE is required when SLIPWAY_GITHUB_APP_ID is set/);
    expect(thrown.problems.join('\n')).toMatch(/SLIPWAY_GITHUB_WEBHOOK_SECRET is required/);
    expect(catchError(() => readGithubApp({ ...loadConfig('control', { ...base, ...github }).github!, privateKeyFile: '/nonexistent/key.pem' })).problems[0]).toMatch(
      /SLIPWAY_GITHUB_PRIVATE_KEY_FILE \(\/nonexistent\/key.pem\) cannot be read: ENOENT/,
    );
    expect(loadConfig('agent', github).github).toBeNull();
  });

  it('gives the agent no database settings', () => {
    const config = loadConfig('agent', {});
    expect(config.database.url).toBeUndefined();
    expect(config.agent.listen).toBe('127.0.0.1:7443');
  });
});

function catchError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}
