// Where the integration tests find the real services. deploy/test.sh (and .ci/run) start them first.
export const TEST_SERVICES = {
  /** A PostgreSQL role that may create databases. */
  postgresAdminUrl: process.env.SLIPWAY_TEST_POSTGRES_URL ?? 'postgresql://slipway_test:slipway_test@127.0.0.1:5432/postgres',
  redisUrl: process.env.SLIPWAY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  caddyAdminUrl: process.env.SLIPWAY_TEST_CADDY_ADMIN_URL ?? 'http://127.0.0.1:2019',
  ingressPort: Number(process.env.SLIPWAY_INGRESS_HTTP_PORT ?? 80),
  dockerSocket: process.env.SLIPWAY_TEST_DOCKER_SOCKET ?? '/var/run/docker.sock',
  templateDatabase: 'slipway_test_template',
};

export function databaseUrl(name: string): string {
  const url = new URL(TEST_SERVICES.postgresAdminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
