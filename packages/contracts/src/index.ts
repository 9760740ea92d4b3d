export * from './operations';
export * from './document';
export * from './validation';
export type * from './types';
export * as schemas from './schemas';
export type { FileListing, FileEntryDto, RenameFileRequest } from './files.schemas';
