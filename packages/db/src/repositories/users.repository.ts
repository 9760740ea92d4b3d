import type { UserRecord, UserRepository } from '@slipway/core';
import type { Db } from '../client';
import { isUniqueViolation } from './errors';

export class PrismaUserRepository implements UserRepository {
  constructor(private readonly db: Db) {}

  async create(input: { email: string; name: string; passwordHash: string }): Promise<UserRecord | null> {
    try {
      return await this.db.user.create({ data: input, select: USER });
    } catch (e) {
      if (isUniqueViolation(e)) return null;
      throw e;
    }
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.db.user.findUnique({ where: { email }, select: USER });
  }

  findById(userId: string): Promise<UserRecord | null> {
    return this.db.user.findUnique({ where: { id: userId }, select: USER });
  }
}

const USER = { id: true, email: true, name: true, passwordHash: true, createdAt: true } as const;
