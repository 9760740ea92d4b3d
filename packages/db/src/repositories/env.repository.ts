import type { AppScope, EnvRecord, EnvRepository } from '@slipway/core';
import type { Db } from '../client';

/** Environment variables of an app, scoped by its workspace; replace-all in one transaction. */
export class PrismaEnvRepository implements EnvRepository {
  constructor(private readonly db: Db) {}

  list(scope: AppScope): Promise<EnvRecord[]> {
    return this.db.envVar.findMany({ where: { appId: scope.appId, app: { workspaceId: scope.workspaceId } }, orderBy: { key: 'asc' }, select: { key: true, value: true, secret: true, updatedAt: true } });
  }

  async replace(scope: AppScope, variables: { key: string; value: string; secret: boolean }[], now: Date): Promise<EnvRecord[]> {
    await this.db.$transaction(async (tx) => {
      // The app must be the workspace's: its row is locked for the replacement, or nothing is written.
      const [owned] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM apps WHERE id = ${scope.appId}::uuid AND workspace_id = ${scope.workspaceId}::uuid FOR UPDATE`;
      if (!owned) return;
      const current = new Map((await tx.envVar.findMany({ where: { appId: scope.appId } })).map((v) => [v.key, v]));
      const keys = variables.map((v) => v.key);
      await tx.envVar.deleteMany({ where: { appId: scope.appId, key: { notIn: keys } } });
      for (const v of variables) {
        const before = current.get(v.key);
        if (before && before.value === v.value && before.secret === v.secret) continue;
        await tx.envVar.upsert({
          where: { appId_key: { appId: scope.appId, key: v.key } },
          create: { appId: scope.appId, key: v.key, value: v.value, secret: v.secret, updatedAt: now },
          update: { value: v.value, secret: v.secret, updatedAt: now },
        });
      }
    });
    return this.list(scope);
  }
}
