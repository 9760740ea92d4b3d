import type { AgentHandlers } from '@slipway/proto';
import { unary, type HandlerTable } from '../rpc/handlers';
import type { ProjectStorage } from './storage';

/** Project folders' sizes and usage (FolderUsage): statfs of each, so cheap enough for every app read. */
export function storageHandlers(deps: { storage: ProjectStorage }): Pick<HandlerTable<AgentHandlers>, 'FolderUsage'> {
  return {
    FolderUsage: unary(async (req) => {
      const folders = [];
      for (const appId of new Set(req.appIds)) {
        const u = await deps.storage.usage(appId);
        if (u) folders.push({ appId, limitMb: u.limitMb, usedMb: u.usedMb });
      }
      return { folders };
    }),
  };
}
