// An app's project folder on its server (spec 4.4, 2.7): list, download, upload, rename, delete.
import { Ok, WORKSPACE_WRITE_DENIALS } from '../common';
import type { Resource } from '../resource';

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

export const FILES = {
  tag: { name: 'files', description: "an app's project folder on its server: list, download, upload, rename, delete" },
  schemas: { FileEntry, FileListing, RenameFileRequest },
  operations: {
    listFiles: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/files',
      tag: 'files',
      summary: "A folder of the app's project folder, as it is now on the server (at most 1,000 entries, sorted by name)",
      description:
        'Symlinks are listed as such. A path through a symlink that leads out of the project folder is 400 `invalid_path`. ' +
        'An app that has no files yet lists as empty.',
      auth: 'any',
      permission: 'files.list',
      query: ListFilesQuery,
      success: { status: 200, description: 'the folder listing', schema: FileListing },
      errors: { 400: ['invalid_path', 'not_a_folder'], 503: ['node_unavailable'] },
    },
    deleteFile: {
      method: 'delete',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/files',
      tag: 'files',
      summary: 'Delete a file, a symlink (not its target) or a folder (one with content only with recursive=true)',
      auth: 'any',
      permission: 'files.write',
      query: DeleteFileQuery,
      success: { status: 200, description: 'deleted', schema: Ok },
      errors: { 400: ['invalid_path', 'not_a_folder'], 403: WORKSPACE_WRITE_DENIALS, 409: ['folder_not_empty'], 503: ['node_unavailable'] },
    },
    downloadFile: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/files/content',
      tag: 'files',
      summary: 'Download a file of the project folder (streamed, with Content-Length and Content-Disposition)',
      description: 'Viewers may list but not download.',
      auth: 'any',
      permission: 'files.download',
      query: FilePathQuery,
      success: { status: 200, description: 'the bytes of the file', schema: FileContent, contentType: 'application/octet-stream', streamed: true },
      errors: { 400: ['invalid_path', 'not_a_file', 'not_a_folder'], 403: ['forbidden'], 503: ['node_unavailable'] },
    },
    uploadFile: {
      method: 'put',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/files/content',
      tag: 'files',
      summary: 'Write a file of the project folder from the raw body (at most 100 MB); missing parent folders are created',
      description:
        'The body is streamed into a temporary file beside the target, which replaces the previous file only once the ' +
        'last byte arrived: an interrupted upload leaves the old file. Past the limit the answer is 413 at once. The ' +
        'change takes effect at once on disk; the app runs new code after a restart, and later deployments keep the file. ' +
        "A file that does not fit in the app's disk (its project folder's size) is refused with 413 disk_quota_exceeded, the old file kept; " +
        'a server below its free-disk reserve refuses uploads with 503 server_disk_low.',
      auth: 'any',
      permission: 'files.write',
      query: FilePathQuery,
      rawBody: { contentType: 'application/octet-stream', description: 'the content of the file' },
      success: { status: 200, description: 'written', schema: Ok },
      errors: { 400: ['invalid_path', 'not_a_file', 'not_a_folder'], 403: WORKSPACE_WRITE_DENIALS, 413: ['disk_quota_exceeded'], 503: ['node_unavailable', 'server_disk_low'] },
    },
    renameFile: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/files/rename',
      tag: 'files',
      summary: 'Rename or move a file or folder inside the project folder; the destination must not exist',
      auth: 'any',
      permission: 'files.write',
      body: RenameFileRequest,
      success: { status: 200, description: 'moved', schema: Ok },
      errors: { 400: ['invalid_path', 'not_a_folder'], 403: WORKSPACE_WRITE_DENIALS, 409: ['destination_exists'], 503: ['node_unavailable'] },
    },
  },
} as const satisfies Resource;
