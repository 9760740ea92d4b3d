export * from './resource-locks';
export * from './journal-id';
export * from './converger';
