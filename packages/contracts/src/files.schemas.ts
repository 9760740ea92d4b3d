// Schemas of the project-files API (spec 4.4, 2.7). Kept beside schemas.ts; they join the document's
// `components.schemas` through COMPONENT_SCHEMAS there.
import type { FromSchema } from 'json-schema-to-ts';

const FILE_PATH_RULES =
  'Relative to the project folder: segments separated by `/`, each non-empty, not `.` or `..`; no backslash, no control ' +
  'characters, no leading or trailing slash; at most 1,024 characters. A bad path, or one that leads out of the folder ' +
  'through a symlink, answers 400 `invalid_path`.';

export const FilePath = { type: 'string', description: FILE_PATH_RULES, examples: ['src/index.js'] } as const;

export const FileEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type', 'size', 'modifiedAt', 'mode'],
  properties: {
    name: { type: 'string' },
    type: {
      type: 'string',
      enum: ['file', 'directory', 'symlink', 'other'],
      description: 'a symlink is reported as such, not followed; `other` is a FIFO or socket the app made',
    },
    size: { type: 'integer', minimum: 0, maximum: 9007199254740991, description: 'bytes (of the link itself for a symlink)' },
    modifiedAt: { type: 'string', format: 'date-time', description: 'ISO 8601 in UTC with milliseconds' },
    mode: { type: 'string', pattern: '^[0-7]{4}$', description: 'octal permission bits', examples: ['0644'] },
  },
} as const;

export const FileListing = {
  type: 'object',
  additionalProperties: false,
  required: ['path', 'entries', 'truncated'],
  properties: {
    path: { type: 'string', description: 'the folder listed, as asked (empty: the project folder)' },
    entries: { type: 'array', maxItems: 1000, items: FileEntry, description: 'sorted by name, at most 1,000' },
    truncated: { type: 'boolean', description: 'true when the folder held more entries than returned' },
  },
} as const;

export const ListFilesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { path: { ...FilePath, default: '', description: `The folder to list; empty (the default) is the project folder. ${FILE_PATH_RULES}` } },
} as const;

export const FilePathQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: { path: FilePath },
} as const;

export const DeleteFileQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: {
    path: FilePath,
    recursive: { type: 'string', enum: ['true', 'false'], default: 'false', description: 'required to delete a folder that is not empty' },
  },
} as const;

export const RenameFileRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: {
    from: { ...FilePath, description: `The file or folder to move (a symlink itself, not its target). ${FILE_PATH_RULES}` },
    to: { ...FilePath, description: 'Where to: must not exist (409 `destination_exists`); missing parent folders are created.' },
  },
} as const;

/** A raw file body (PUT content) or download (GET content). */
export const FileContent = { type: 'string', contentMediaType: 'application/octet-stream', description: 'the bytes of the file' } as const;

export const FILES_SCHEMAS = { FileEntry, FileListing, RenameFileRequest } as const;

export type FileListing = FromSchema<typeof FileListing>;
export type FileEntryDto = FromSchema<typeof FileEntry>;
export type RenameFileRequest = FromSchema<typeof RenameFileRequest>;
