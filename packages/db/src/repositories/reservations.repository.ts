import type { QuotaState, ReservationRepository, ReservationRequest } from '@slipway/core';
import type { Db } from '../client';
import { TX_OPTIONS } from './members.repository';
import { readQuotaState } from './quota-state';

export class PrismaReservationRepository implements ReservationRepository {
  constructor(private readonly db: Db) {}

  reserve(scope: { workspaceId: string }, request: ReservationRequest, decide: (state: QuotaState) => void): Promise<void> {
    return this.db.$transaction(async (tx) => {
      const state = await readQuotaState(tx, scope.workspaceId, { lock: true, excludeResourceId: request.resourceId });
      decide(state);
      const size = { cpuMillis: request.cpuMillis, memoryMb: request.memoryMb, diskMb: request.diskMb };
      await tx.reservation.upsert({
        where: { resourceId: request.resourceId },
        create: { workspaceId: scope.workspaceId, resourceType: request.resourceType, resourceId: request.resourceId, ...size },
        update: size,
      });
    }, TX_OPTIONS);
  }

  async release(scope: { workspaceId: string; resourceId: string }): Promise<boolean> {
    const { count } = await this.db.reservation.deleteMany({ where: { workspaceId: scope.workspaceId, resourceId: scope.resourceId } });
    return count > 0;
  }

  state(scope: { workspaceId: string }): Promise<QuotaState> {
    return this.db.$transaction((tx) => readQuotaState(tx, scope.workspaceId, { lock: false }));
  }
}
