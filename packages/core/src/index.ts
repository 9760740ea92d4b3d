export * from './errors';
export * from './ids';
export * from './logging';
