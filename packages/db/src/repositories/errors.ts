import { Prisma } from '../generated/client';

/** A unique constraint was violated (P2002). */
export const isUniqueViolation = (e: unknown): boolean => e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002';

/** The row to update or delete was not found (P2025). */
export const isNotFound = (e: unknown): boolean => e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2025';
