// Original file: ../../proto/slipway/agent/v1/files.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DeleteFileRequest as _slipway_agent_v1_DeleteFileRequest, DeleteFileRequest__Output as _slipway_agent_v1_DeleteFileRequest__Output } from '../../../slipway/agent/v1/DeleteFileRequest';
import type { FilesOk as _slipway_agent_v1_FilesOk, FilesOk__Output as _slipway_agent_v1_FilesOk__Output } from '../../../slipway/agent/v1/FilesOk';
import type { ListFilesRequest as _slipway_agent_v1_ListFilesRequest, ListFilesRequest__Output as _slipway_agent_v1_ListFilesRequest__Output } from '../../../slipway/agent/v1/ListFilesRequest';
import type { ListFilesResponse as _slipway_agent_v1_ListFilesResponse, ListFilesResponse__Output as _slipway_agent_v1_ListFilesResponse__Output } from '../../../slipway/agent/v1/ListFilesResponse';
import type { ReadFileChunk as _slipway_agent_v1_ReadFileChunk, ReadFileChunk__Output as _slipway_agent_v1_ReadFileChunk__Output } from '../../../slipway/agent/v1/ReadFileChunk';
import type { ReadFileRequest as _slipway_agent_v1_ReadFileRequest, ReadFileRequest__Output as _slipway_agent_v1_ReadFileRequest__Output } from '../../../slipway/agent/v1/ReadFileRequest';
import type { RenameFileRequest as _slipway_agent_v1_RenameFileRequest, RenameFileRequest__Output as _slipway_agent_v1_RenameFileRequest__Output } from '../../../slipway/agent/v1/RenameFileRequest';
import type { WriteFileChunk as _slipway_agent_v1_WriteFileChunk, WriteFileChunk__Output as _slipway_agent_v1_WriteFileChunk__Output } from '../../../slipway/agent/v1/WriteFileChunk';
import type { WriteFileResponse as _slipway_agent_v1_WriteFileResponse, WriteFileResponse__Output as _slipway_agent_v1_WriteFileResponse__Output } from '../../../slipway/agent/v1/WriteFileResponse';

export interface FilesClient extends grpc.Client {
  /**
   * Deletes a file, a symlink (not its target) or a folder (with content only when `recursive`).
   */
  DeleteFile(argument: _slipway_agent_v1_DeleteFileRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  DeleteFile(argument: _slipway_agent_v1_DeleteFileRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  DeleteFile(argument: _slipway_agent_v1_DeleteFileRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  DeleteFile(argument: _slipway_agent_v1_DeleteFileRequest, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  /**
   * Deletes a file, a symlink (not its target) or a folder (with content only when `recursive`).
   */
  deleteFile(argument: _slipway_agent_v1_DeleteFileRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  deleteFile(argument: _slipway_agent_v1_DeleteFileRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  deleteFile(argument: _slipway_agent_v1_DeleteFileRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  deleteFile(argument: _slipway_agent_v1_DeleteFileRequest, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  
  /**
   * The entries of a folder, sorted by name; at most `limit` of them.
   */
  ListFiles(argument: _slipway_agent_v1_ListFilesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  ListFiles(argument: _slipway_agent_v1_ListFilesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  ListFiles(argument: _slipway_agent_v1_ListFilesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  ListFiles(argument: _slipway_agent_v1_ListFilesRequest, callback: grpc.requestCallback<_slipway_agent_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The entries of a folder, sorted by name; at most `limit` of them.
   */
  listFiles(argument: _slipway_agent_v1_ListFilesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  listFiles(argument: _slipway_agent_v1_ListFilesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  listFiles(argument: _slipway_agent_v1_ListFilesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  listFiles(argument: _slipway_agent_v1_ListFilesRequest, callback: grpc.requestCallback<_slipway_agent_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * A file's bytes: the first message carries its size, every later one data.
   */
  ReadFile(argument: _slipway_agent_v1_ReadFileRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ReadFileChunk__Output>;
  ReadFile(argument: _slipway_agent_v1_ReadFileRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ReadFileChunk__Output>;
  /**
   * A file's bytes: the first message carries its size, every later one data.
   */
  readFile(argument: _slipway_agent_v1_ReadFileRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ReadFileChunk__Output>;
  readFile(argument: _slipway_agent_v1_ReadFileRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ReadFileChunk__Output>;
  
  /**
   * Moves a file or folder; the destination must not exist. Missing parents of `to` are created.
   */
  RenameFile(argument: _slipway_agent_v1_RenameFileRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  RenameFile(argument: _slipway_agent_v1_RenameFileRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  RenameFile(argument: _slipway_agent_v1_RenameFileRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  RenameFile(argument: _slipway_agent_v1_RenameFileRequest, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  /**
   * Moves a file or folder; the destination must not exist. Missing parents of `to` are created.
   */
  renameFile(argument: _slipway_agent_v1_RenameFileRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  renameFile(argument: _slipway_agent_v1_RenameFileRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  renameFile(argument: _slipway_agent_v1_RenameFileRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  renameFile(argument: _slipway_agent_v1_RenameFileRequest, callback: grpc.requestCallback<_slipway_agent_v1_FilesOk__Output>): grpc.ClientUnaryCall;
  
  /**
   * A file sent in chunks: the first message is the header, then data, then `commit` with the total size.
   * The agent writes a temporary file beside the target and renames it over the target on commit only; a stream
   * that breaks, is cancelled or passes the size limit leaves the old file and no temporary file.
   */
  WriteFile(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_WriteFileResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_WriteFileChunk>;
  WriteFile(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_WriteFileResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_WriteFileChunk>;
  WriteFile(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_WriteFileResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_WriteFileChunk>;
  WriteFile(callback: grpc.requestCallback<_slipway_agent_v1_WriteFileResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_WriteFileChunk>;
  /**
   * A file sent in chunks: the first message is the header, then data, then `commit` with the total size.
   * The agent writes a temporary file beside the target and renames it over the target on commit only; a stream
   * that breaks, is cancelled or passes the size limit leaves the old file and no temporary file.
   */
  writeFile(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_WriteFileResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_WriteFileChunk>;
  writeFile(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_WriteFileResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_WriteFileChunk>;
  writeFile(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_WriteFileResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_WriteFileChunk>;
  writeFile(callback: grpc.requestCallback<_slipway_agent_v1_WriteFileResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_WriteFileChunk>;
  
}

export interface FilesHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Deletes a file, a symlink (not its target) or a folder (with content only when `recursive`).
   */
  DeleteFile: grpc.handleUnaryCall<_slipway_agent_v1_DeleteFileRequest__Output, _slipway_agent_v1_FilesOk>;
  
  /**
   * The entries of a folder, sorted by name; at most `limit` of them.
   */
  ListFiles: grpc.handleUnaryCall<_slipway_agent_v1_ListFilesRequest__Output, _slipway_agent_v1_ListFilesResponse>;
  
  /**
   * A file's bytes: the first message carries its size, every later one data.
   */
  ReadFile: grpc.handleServerStreamingCall<_slipway_agent_v1_ReadFileRequest__Output, _slipway_agent_v1_ReadFileChunk>;
  
  /**
   * Moves a file or folder; the destination must not exist. Missing parents of `to` are created.
   */
  RenameFile: grpc.handleUnaryCall<_slipway_agent_v1_RenameFileRequest__Output, _slipway_agent_v1_FilesOk>;
  
  /**
   * A file sent in chunks: the first message is the header, then data, then `commit` with the total size.
   * The agent writes a temporary file beside the target and renames it over the target on commit only; a stream
   * that breaks, is cancelled or passes the size limit leaves the old file and no temporary file.
   */
  WriteFile: grpc.handleClientStreamingCall<_slipway_agent_v1_WriteFileChunk__Output, _slipway_agent_v1_WriteFileResponse>;
  
}

export interface FilesDefinition extends grpc.ServiceDefinition {
  DeleteFile: MethodDefinition<_slipway_agent_v1_DeleteFileRequest, _slipway_agent_v1_FilesOk, _slipway_agent_v1_DeleteFileRequest__Output, _slipway_agent_v1_FilesOk__Output>
  ListFiles: MethodDefinition<_slipway_agent_v1_ListFilesRequest, _slipway_agent_v1_ListFilesResponse, _slipway_agent_v1_ListFilesRequest__Output, _slipway_agent_v1_ListFilesResponse__Output>
  ReadFile: MethodDefinition<_slipway_agent_v1_ReadFileRequest, _slipway_agent_v1_ReadFileChunk, _slipway_agent_v1_ReadFileRequest__Output, _slipway_agent_v1_ReadFileChunk__Output>
  RenameFile: MethodDefinition<_slipway_agent_v1_RenameFileRequest, _slipway_agent_v1_FilesOk, _slipway_agent_v1_RenameFileRequest__Output, _slipway_agent_v1_FilesOk__Output>
  WriteFile: MethodDefinition<_slipway_agent_v1_WriteFileChunk, _slipway_agent_v1_WriteFileResponse, _slipway_agent_v1_WriteFileChunk__Output, _slipway_agent_v1_WriteFileResponse__Output>
}
