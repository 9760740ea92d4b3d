import { AppError } from '../errors';
import type { ReservationRepository, ReservationRequest } from '../ports/repositories';
import { assertReservationFits } from './quota';

export const RESOURCE_TYPES = ['app', 'postgres', 'mysql', 'redis', 'mongodb'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/**
 * Reserves and releases vCPU and memory against a workspace's effective limits. The check and the write happen in
 * one transaction that holds the workspace's row lock, so concurrent reservations are serialised and their sum
 * never passes the limit. Apps and databases call it at creation and resize (same resourceId: the new size
 * replaces the old one), and release at deletion.
 */
export class QuotaService {
  constructor(private readonly reservations: ReservationRepository) {}

  async reserve(workspaceId: string, request: ReservationRequest & { resourceType: ResourceType }): Promise<void> {
    for (const k of ['cpuMillis', 'memoryMb', 'diskMb'] as const) {
      if (!Number.isSafeInteger(request[k]) || request[k] < 0) throw new Error(`A reservation's ${k} must be a whole number >= 0`);
    }
    if (!RESOURCE_TYPES.includes(request.resourceType)) throw new AppError('validation_failed', 'Unknown resource type');
    await this.reservations.reserve({ workspaceId }, request, (state) => assertReservationFits(state, request));
  }

  release(workspaceId: string, resourceId: string): Promise<boolean> {
    return this.reservations.release({ workspaceId, resourceId });
  }
}
