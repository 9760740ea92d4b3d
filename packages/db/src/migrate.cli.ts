// `pnpm db:migrate`: applies the committed migrations to DATABASE_URL. Exits non-zero when one fails.
import { loadConfig } from '@slipway/config';
import { migrate } from './migrate';

async function main() {
  const config = loadConfig('cli');
  const result = await migrate(config.database.url);
  console.log(`migrations: ${result.applied.length} applied${result.applied.map((n) => `\n  + ${n}`).join('')}, ${result.alreadyApplied} already applied`);
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
