// slipway-admin: the operator CLI. `slipway-admin --help` lists the commands.
import { ConfigError, loadConfig } from '@slipway/config';
import { buildProgram, EXIT } from './cli';

const settings = () => {
  const config = loadConfig('cli');
  return { databaseUrl: config.database.url, redisUrl: config.redis.url, redisPrefix: config.redis.prefix };
};

const { run } = buildProgram(settings, { out: (s) => console.log(s), err: (s) => console.error(s) });

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof ConfigError ? e.message : e);
    process.exit(e instanceof ConfigError ? EXIT.usage : EXIT.failure);
  },
);
