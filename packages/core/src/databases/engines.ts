import { randomBytes } from 'node:crypto';

// The engines' facts (names, versions, ports, accounts, URLs) live in @slipway/contracts, shared with the agent.
export type { DatabaseEngine } from '@slipway/contracts';

/** A random password: 32 random bytes as base64url (43 characters: letters, digits, `-` and `_`). */
export const newDatabasePassword = (): string => randomBytes(32).toString('base64url');
