export * from './errors';
export * from './ids';
export * from './logging';
export * from './ports/jobs';
export * from './ports/agents';
