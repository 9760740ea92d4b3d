import { AppError } from '@slipway/core';
import type { ProjectStorage } from './storage';

export interface DiskReserve {
  /** Share of the disk kept free, in %. */
  percent: number;
  /** Free disk kept, in MB. The reserve is the smaller of the two (10 % of a 2 TB disk would idle 200 GB). */
  mb: number;
}

export interface DiskReport {
  totalMb: number;
  freeMb: number;
  reserveMb: number;
  low: boolean;
  allocatedMb: number;
  folders: number;
}

/** The free disk this server keeps for its running apps (pure: unit-tested). */
export function reserveMb(totalMb: number, reserve: DiskReserve): number {
  return Math.min(Math.floor((totalMb * reserve.percent) / 100), reserve.mb);
}

/**
 * The server guarding its own room: what it reports with its health, and the refusal of new builds, deployments and
 * uploads (`server_disk_low`, naming the server) while its free disk is below the reserve. Running apps are never
 * touched: their folders have their own sizes already.
 */
export class DiskGuard {
  constructor(
    private readonly storage: ProjectStorage,
    private readonly nodeName: string,
    private reserve: DiskReserve,
  ) {}

  async report(): Promise<DiskReport> {
    const disk = await this.storage.serverDisk();
    const reserve = reserveMb(disk.totalMb, this.reserve);
    return { totalMb: disk.totalMb, freeMb: disk.freeMb, reserveMb: reserve, low: disk.freeMb < reserve, allocatedMb: disk.allocatedMb, folders: disk.folders };
  }

  /** Throws `server_disk_low` when the free disk is below the reserve (one statfs: it runs before every deployment). */
  async assertRoom(what: string): Promise<void> {
    const disk = await this.storage.serverFree();
    const r = { freeMb: disk.freeMb, reserveMb: reserveMb(disk.totalMb, this.reserve) };
    if (r.freeMb >= r.reserveMb) return;
    throw new AppError(
      'server_disk_low',
      `The server ${this.nodeName} is low on disk (${r.freeMb} MB free, ${r.reserveMb} MB kept for running apps): ${what} waits until room is back`,
      [{ node: this.nodeName, freeMb: r.freeMb, reserveMb: r.reserveMb }],
    );
  }

  /** Tests set the reserve so that it is reached, then lower it again. */
  setReserve(reserve: DiskReserve): void {
    this.reserve = reserve;
  }
}
