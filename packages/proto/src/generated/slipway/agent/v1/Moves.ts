// Original file: ../../proto/slipway/agent/v1/moves.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DataSignatureRequest as _slipway_agent_v1_DataSignatureRequest, DataSignatureRequest__Output as _slipway_agent_v1_DataSignatureRequest__Output } from '../../../slipway/agent/v1/DataSignatureRequest';
import type { ExportDataDeltaRequest as _slipway_agent_v1_ExportDataDeltaRequest, ExportDataDeltaRequest__Output as _slipway_agent_v1_ExportDataDeltaRequest__Output } from '../../../slipway/agent/v1/ExportDataDeltaRequest';
import type { ExportFolderRequest as _slipway_agent_v1_ExportFolderRequest, ExportFolderRequest__Output as _slipway_agent_v1_ExportFolderRequest__Output } from '../../../slipway/agent/v1/ExportFolderRequest';
import type { ExportImagesRequest as _slipway_agent_v1_ExportImagesRequest, ExportImagesRequest__Output as _slipway_agent_v1_ExportImagesRequest__Output } from '../../../slipway/agent/v1/ExportImagesRequest';
import type { ImportChunk as _slipway_agent_v1_ImportChunk, ImportChunk__Output as _slipway_agent_v1_ImportChunk__Output } from '../../../slipway/agent/v1/ImportChunk';
import type { ImportFolderResponse as _slipway_agent_v1_ImportFolderResponse, ImportFolderResponse__Output as _slipway_agent_v1_ImportFolderResponse__Output } from '../../../slipway/agent/v1/ImportFolderResponse';
import type { ImportImagesResponse as _slipway_agent_v1_ImportImagesResponse, ImportImagesResponse__Output as _slipway_agent_v1_ImportImagesResponse__Output } from '../../../slipway/agent/v1/ImportImagesResponse';
import type { MoveChunk as _slipway_agent_v1_MoveChunk, MoveChunk__Output as _slipway_agent_v1_MoveChunk__Output } from '../../../slipway/agent/v1/MoveChunk';
import type { RemoveBackupFoldersRequest as _slipway_agent_v1_RemoveBackupFoldersRequest, RemoveBackupFoldersRequest__Output as _slipway_agent_v1_RemoveBackupFoldersRequest__Output } from '../../../slipway/agent/v1/RemoveBackupFoldersRequest';
import type { RemoveBackupFoldersResponse as _slipway_agent_v1_RemoveBackupFoldersResponse, RemoveBackupFoldersResponse__Output as _slipway_agent_v1_RemoveBackupFoldersResponse__Output } from '../../../slipway/agent/v1/RemoveBackupFoldersResponse';

export interface MovesClient extends grpc.Client {
  /**
   * What this server holds of a database's data folder (a pre-copy received earlier), as a block signature
   * (apps/agent/src/moves/block-delta.ts: every entry, and each file's SHA-256 per `block_size` block), in data chunks
   * then an `end`. Refused while a container of the database runs here. No folder: an empty signature.
   */
  DataSignature(argument: _slipway_agent_v1_DataSignatureRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  DataSignature(argument: _slipway_agent_v1_DataSignatureRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  /**
   * What this server holds of a database's data folder (a pre-copy received earlier), as a block signature
   * (apps/agent/src/moves/block-delta.ts: every entry, and each file's SHA-256 per `block_size` block), in data chunks
   * then an `end`. Refused while a container of the database runs here. No folder: an empty signature.
   */
  dataSignature(argument: _slipway_agent_v1_DataSignatureRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  dataSignature(argument: _slipway_agent_v1_DataSignatureRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  
  /**
   * The block delta that makes a folder described by `signature` equal to this server's data folder of the database:
   * paths to remove, every entry with its owner and mode, and only the blocks whose hash differs. Refused while the
   * database's container runs here unless `live` (a pass made while the engine runs: possibly inconsistent, corrected
   * by the last pass, made stopped; the engine is first asked to write its memory to disk where it has a command for
   * it: PostgreSQL's CHECKPOINT). Imported with ImportFolder(DATABASE_DATA_DELTA).
   */
  ExportDataDelta(argument: _slipway_agent_v1_ExportDataDeltaRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  ExportDataDelta(argument: _slipway_agent_v1_ExportDataDeltaRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  /**
   * The block delta that makes a folder described by `signature` equal to this server's data folder of the database:
   * paths to remove, every entry with its owner and mode, and only the blocks whose hash differs. Refused while the
   * database's container runs here unless `live` (a pass made while the engine runs: possibly inconsistent, corrected
   * by the last pass, made stopped; the engine is first asked to write its memory to disk where it has a command for
   * it: PostgreSQL's CHECKPOINT). Imported with ImportFolder(DATABASE_DATA_DELTA).
   */
  exportDataDelta(argument: _slipway_agent_v1_ExportDataDeltaRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  exportDataDelta(argument: _slipway_agent_v1_ExportDataDeltaRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  
  /**
   * The app's project folder as a tar (numeric owners, modes, times, links as links), then an `end` with the bytes
   * sent. A server without the folder sends only the end (0 bytes).
   */
  ExportFolder(argument: _slipway_agent_v1_ExportFolderRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  ExportFolder(argument: _slipway_agent_v1_ExportFolderRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  /**
   * The app's project folder as a tar (numeric owners, modes, times, links as links), then an `end` with the bytes
   * sent. A server without the folder sends only the end (0 bytes).
   */
  exportFolder(argument: _slipway_agent_v1_ExportFolderRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  exportFolder(argument: _slipway_agent_v1_ExportFolderRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  
  /**
   * `docker save` of the listed image tags as one tar (layers shared between them sent once), then an `end`
   * carrying the bytes sent. Tags the server no longer holds are left out (none held: only the end, 0 bytes).
   */
  ExportImages(argument: _slipway_agent_v1_ExportImagesRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  ExportImages(argument: _slipway_agent_v1_ExportImagesRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  /**
   * `docker save` of the listed image tags as one tar (layers shared between them sent once), then an `end`
   * carrying the bytes sent. Tags the server no longer holds are left out (none held: only the end, 0 bytes).
   */
  exportImages(argument: _slipway_agent_v1_ExportImagesRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  exportImages(argument: _slipway_agent_v1_ExportImagesRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_MoveChunk__Output>;
  
  /**
   * Unpacks a tar of ExportFolder into the app's project folder, made at `disk_mb` when missing: files of the tar
   * replace, other files stay. Records `seeded_image_ref`'s image as the one that seeded the folder, so the next
   * rollout of that image does not seed over the copied files. Same header/data/commit rules as ImportImages.
   */
  ImportFolder(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportFolderResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  ImportFolder(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ImportFolderResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  ImportFolder(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportFolderResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  ImportFolder(callback: grpc.requestCallback<_slipway_agent_v1_ImportFolderResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  /**
   * Unpacks a tar of ExportFolder into the app's project folder, made at `disk_mb` when missing: files of the tar
   * replace, other files stay. Records `seeded_image_ref`'s image as the one that seeded the folder, so the next
   * rollout of that image does not seed over the copied files. Same header/data/commit rules as ImportImages.
   */
  importFolder(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportFolderResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  importFolder(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ImportFolderResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  importFolder(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportFolderResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  importFolder(callback: grpc.requestCallback<_slipway_agent_v1_ImportFolderResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  
  /**
   * `docker load` of a tar made by ExportImages: a header, data, then a commit with the byte count; without the
   * commit (the sender failed or cancelled) the load is aborted. Answers the tags the tar held.
   */
  ImportImages(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportImagesResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  ImportImages(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ImportImagesResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  ImportImages(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportImagesResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  ImportImages(callback: grpc.requestCallback<_slipway_agent_v1_ImportImagesResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  /**
   * `docker load` of a tar made by ExportImages: a header, data, then a commit with the byte count; without the
   * commit (the sender failed or cancelled) the load is aborted. Answers the tags the tar held.
   */
  importImages(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportImagesResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  importImages(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ImportImagesResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  importImages(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportImagesResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  importImages(callback: grpc.requestCallback<_slipway_agent_v1_ImportImagesResponse__Output>): grpc.ClientWritableStream<_slipway_agent_v1_ImportChunk>;
  
  /**
   * The backup folders (`backups/<database_id>/`) of databases moved away from this server: removed once the move is
   * recorded (the source's cleanup) or undone on a target (what a failed move copied there). Missing folders count 0.
   */
  RemoveBackupFolders(argument: _slipway_agent_v1_RemoveBackupFoldersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveBackupFoldersResponse__Output>): grpc.ClientUnaryCall;
  RemoveBackupFolders(argument: _slipway_agent_v1_RemoveBackupFoldersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveBackupFoldersResponse__Output>): grpc.ClientUnaryCall;
  RemoveBackupFolders(argument: _slipway_agent_v1_RemoveBackupFoldersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveBackupFoldersResponse__Output>): grpc.ClientUnaryCall;
  RemoveBackupFolders(argument: _slipway_agent_v1_RemoveBackupFoldersRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveBackupFoldersResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The backup folders (`backups/<database_id>/`) of databases moved away from this server: removed once the move is
   * recorded (the source's cleanup) or undone on a target (what a failed move copied there). Missing folders count 0.
   */
  removeBackupFolders(argument: _slipway_agent_v1_RemoveBackupFoldersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveBackupFoldersResponse__Output>): grpc.ClientUnaryCall;
  removeBackupFolders(argument: _slipway_agent_v1_RemoveBackupFoldersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveBackupFoldersResponse__Output>): grpc.ClientUnaryCall;
  removeBackupFolders(argument: _slipway_agent_v1_RemoveBackupFoldersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveBackupFoldersResponse__Output>): grpc.ClientUnaryCall;
  removeBackupFolders(argument: _slipway_agent_v1_RemoveBackupFoldersRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveBackupFoldersResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface MovesHandlers extends grpc.UntypedServiceImplementation {
  /**
   * What this server holds of a database's data folder (a pre-copy received earlier), as a block signature
   * (apps/agent/src/moves/block-delta.ts: every entry, and each file's SHA-256 per `block_size` block), in data chunks
   * then an `end`. Refused while a container of the database runs here. No folder: an empty signature.
   */
  DataSignature: grpc.handleServerStreamingCall<_slipway_agent_v1_DataSignatureRequest__Output, _slipway_agent_v1_MoveChunk>;
  
  /**
   * The block delta that makes a folder described by `signature` equal to this server's data folder of the database:
   * paths to remove, every entry with its owner and mode, and only the blocks whose hash differs. Refused while the
   * database's container runs here unless `live` (a pass made while the engine runs: possibly inconsistent, corrected
   * by the last pass, made stopped; the engine is first asked to write its memory to disk where it has a command for
   * it: PostgreSQL's CHECKPOINT). Imported with ImportFolder(DATABASE_DATA_DELTA).
   */
  ExportDataDelta: grpc.handleServerStreamingCall<_slipway_agent_v1_ExportDataDeltaRequest__Output, _slipway_agent_v1_MoveChunk>;
  
  /**
   * The app's project folder as a tar (numeric owners, modes, times, links as links), then an `end` with the bytes
   * sent. A server without the folder sends only the end (0 bytes).
   */
  ExportFolder: grpc.handleServerStreamingCall<_slipway_agent_v1_ExportFolderRequest__Output, _slipway_agent_v1_MoveChunk>;
  
  /**
   * `docker save` of the listed image tags as one tar (layers shared between them sent once), then an `end`
   * carrying the bytes sent. Tags the server no longer holds are left out (none held: only the end, 0 bytes).
   */
  ExportImages: grpc.handleServerStreamingCall<_slipway_agent_v1_ExportImagesRequest__Output, _slipway_agent_v1_MoveChunk>;
  
  /**
   * Unpacks a tar of ExportFolder into the app's project folder, made at `disk_mb` when missing: files of the tar
   * replace, other files stay. Records `seeded_image_ref`'s image as the one that seeded the folder, so the next
   * rollout of that image does not seed over the copied files. Same header/data/commit rules as ImportImages.
   */
  ImportFolder: grpc.handleClientStreamingCall<_slipway_agent_v1_ImportChunk__Output, _slipway_agent_v1_ImportFolderResponse>;
  
  /**
   * `docker load` of a tar made by ExportImages: a header, data, then a commit with the byte count; without the
   * commit (the sender failed or cancelled) the load is aborted. Answers the tags the tar held.
   */
  ImportImages: grpc.handleClientStreamingCall<_slipway_agent_v1_ImportChunk__Output, _slipway_agent_v1_ImportImagesResponse>;
  
  /**
   * The backup folders (`backups/<database_id>/`) of databases moved away from this server: removed once the move is
   * recorded (the source's cleanup) or undone on a target (what a failed move copied there). Missing folders count 0.
   */
  RemoveBackupFolders: grpc.handleUnaryCall<_slipway_agent_v1_RemoveBackupFoldersRequest__Output, _slipway_agent_v1_RemoveBackupFoldersResponse>;
  
}

export interface MovesDefinition extends grpc.ServiceDefinition {
  DataSignature: MethodDefinition<_slipway_agent_v1_DataSignatureRequest, _slipway_agent_v1_MoveChunk, _slipway_agent_v1_DataSignatureRequest__Output, _slipway_agent_v1_MoveChunk__Output>
  ExportDataDelta: MethodDefinition<_slipway_agent_v1_ExportDataDeltaRequest, _slipway_agent_v1_MoveChunk, _slipway_agent_v1_ExportDataDeltaRequest__Output, _slipway_agent_v1_MoveChunk__Output>
  ExportFolder: MethodDefinition<_slipway_agent_v1_ExportFolderRequest, _slipway_agent_v1_MoveChunk, _slipway_agent_v1_ExportFolderRequest__Output, _slipway_agent_v1_MoveChunk__Output>
  ExportImages: MethodDefinition<_slipway_agent_v1_ExportImagesRequest, _slipway_agent_v1_MoveChunk, _slipway_agent_v1_ExportImagesRequest__Output, _slipway_agent_v1_MoveChunk__Output>
  ImportFolder: MethodDefinition<_slipway_agent_v1_ImportChunk, _slipway_agent_v1_ImportFolderResponse, _slipway_agent_v1_ImportChunk__Output, _slipway_agent_v1_ImportFolderResponse__Output>
  ImportImages: MethodDefinition<_slipway_agent_v1_ImportChunk, _slipway_agent_v1_ImportImagesResponse, _slipway_agent_v1_ImportChunk__Output, _slipway_agent_v1_ImportImagesResponse__Output>
  RemoveBackupFolders: MethodDefinition<_slipway_agent_v1_RemoveBackupFoldersRequest, _slipway_agent_v1_RemoveBackupFoldersResponse, _slipway_agent_v1_RemoveBackupFoldersRequest__Output, _slipway_agent_v1_RemoveBackupFoldersResponse__Output>
}
