export * from './resource';
export * from './api';
export * from './document';
export * from './validation';
export type * from './types';
export * as schemas from './schemas';
export * from './facts';
export * from './operator/document';
export * from './operator/validation';
