// Prisma CLI settings (generate, migrate diff for authoring migrations). The product applies
// migrations with its own runner (packages/db/src/migrate.ts) and never needs this file at run time.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://slipway:slipway@127.0.0.1:5432/slipway' },
});
