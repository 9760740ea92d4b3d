// Original file: ../../proto/slipway/agent/v1/backups.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { BackupFile as _slipway_agent_v1_BackupFile, BackupFile__Output as _slipway_agent_v1_BackupFile__Output } from '../../../slipway/agent/v1/BackupFile';
import type { BackupRequest as _slipway_agent_v1_BackupRequest, BackupRequest__Output as _slipway_agent_v1_BackupRequest__Output } from '../../../slipway/agent/v1/BackupRequest';
import type { DeleteBackupResponse as _slipway_agent_v1_DeleteBackupResponse, DeleteBackupResponse__Output as _slipway_agent_v1_DeleteBackupResponse__Output } from '../../../slipway/agent/v1/DeleteBackupResponse';
import type { ProbeDestinationRequest as _slipway_agent_v1_ProbeDestinationRequest, ProbeDestinationRequest__Output as _slipway_agent_v1_ProbeDestinationRequest__Output } from '../../../slipway/agent/v1/ProbeDestinationRequest';
import type { ProbeDestinationResponse as _slipway_agent_v1_ProbeDestinationResponse, ProbeDestinationResponse__Output as _slipway_agent_v1_ProbeDestinationResponse__Output } from '../../../slipway/agent/v1/ProbeDestinationResponse';
import type { ReadBackupChunk as _slipway_agent_v1_ReadBackupChunk, ReadBackupChunk__Output as _slipway_agent_v1_ReadBackupChunk__Output } from '../../../slipway/agent/v1/ReadBackupChunk';
import type { ReadBackupRequest as _slipway_agent_v1_ReadBackupRequest, ReadBackupRequest__Output as _slipway_agent_v1_ReadBackupRequest__Output } from '../../../slipway/agent/v1/ReadBackupRequest';
import type { RestoreBackupRequest as _slipway_agent_v1_RestoreBackupRequest, RestoreBackupRequest__Output as _slipway_agent_v1_RestoreBackupRequest__Output } from '../../../slipway/agent/v1/RestoreBackupRequest';
import type { RestoreBackupResponse as _slipway_agent_v1_RestoreBackupResponse, RestoreBackupResponse__Output as _slipway_agent_v1_RestoreBackupResponse__Output } from '../../../slipway/agent/v1/RestoreBackupResponse';
import type { VerifyBackupResponse as _slipway_agent_v1_VerifyBackupResponse, VerifyBackupResponse__Output as _slipway_agent_v1_VerifyBackupResponse__Output } from '../../../slipway/agent/v1/VerifyBackupResponse';

export interface BackupsClient extends grpc.Client {
  /**
   * Dumps the database into the backup `backup_id`. A repeat with the same id answers the file already made
   * (`replayed`).
   */
  CreateBackup(argument: _slipway_agent_v1_BackupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_BackupFile__Output>): grpc.ClientUnaryCall;
  CreateBackup(argument: _slipway_agent_v1_BackupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_BackupFile__Output>): grpc.ClientUnaryCall;
  CreateBackup(argument: _slipway_agent_v1_BackupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_BackupFile__Output>): grpc.ClientUnaryCall;
  CreateBackup(argument: _slipway_agent_v1_BackupRequest, callback: grpc.requestCallback<_slipway_agent_v1_BackupFile__Output>): grpc.ClientUnaryCall;
  /**
   * Dumps the database into the backup `backup_id`. A repeat with the same id answers the file already made
   * (`replayed`).
   */
  createBackup(argument: _slipway_agent_v1_BackupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_BackupFile__Output>): grpc.ClientUnaryCall;
  createBackup(argument: _slipway_agent_v1_BackupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_BackupFile__Output>): grpc.ClientUnaryCall;
  createBackup(argument: _slipway_agent_v1_BackupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_BackupFile__Output>): grpc.ClientUnaryCall;
  createBackup(argument: _slipway_agent_v1_BackupRequest, callback: grpc.requestCallback<_slipway_agent_v1_BackupFile__Output>): grpc.ClientUnaryCall;
  
  /**
   * File and record removed; idempotent.
   */
  DeleteBackup(argument: _slipway_agent_v1_ReadBackupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DeleteBackupResponse__Output>): grpc.ClientUnaryCall;
  DeleteBackup(argument: _slipway_agent_v1_ReadBackupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DeleteBackupResponse__Output>): grpc.ClientUnaryCall;
  DeleteBackup(argument: _slipway_agent_v1_ReadBackupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DeleteBackupResponse__Output>): grpc.ClientUnaryCall;
  DeleteBackup(argument: _slipway_agent_v1_ReadBackupRequest, callback: grpc.requestCallback<_slipway_agent_v1_DeleteBackupResponse__Output>): grpc.ClientUnaryCall;
  /**
   * File and record removed; idempotent.
   */
  deleteBackup(argument: _slipway_agent_v1_ReadBackupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DeleteBackupResponse__Output>): grpc.ClientUnaryCall;
  deleteBackup(argument: _slipway_agent_v1_ReadBackupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DeleteBackupResponse__Output>): grpc.ClientUnaryCall;
  deleteBackup(argument: _slipway_agent_v1_ReadBackupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DeleteBackupResponse__Output>): grpc.ClientUnaryCall;
  deleteBackup(argument: _slipway_agent_v1_ReadBackupRequest, callback: grpc.requestCallback<_slipway_agent_v1_DeleteBackupResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Issue 33: the destination test call, run from the server whose backups go there: writes a small probe object
   * under `prefix`, reads it back, deletes it. A failure is an answer (ok false, the stage, a reason word and a
   * sentence), not an error.
   */
  ProbeDestination(argument: _slipway_agent_v1_ProbeDestinationRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ProbeDestinationResponse__Output>): grpc.ClientUnaryCall;
  ProbeDestination(argument: _slipway_agent_v1_ProbeDestinationRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ProbeDestinationResponse__Output>): grpc.ClientUnaryCall;
  ProbeDestination(argument: _slipway_agent_v1_ProbeDestinationRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ProbeDestinationResponse__Output>): grpc.ClientUnaryCall;
  ProbeDestination(argument: _slipway_agent_v1_ProbeDestinationRequest, callback: grpc.requestCallback<_slipway_agent_v1_ProbeDestinationResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Issue 33: the destination test call, run from the server whose backups go there: writes a small probe object
   * under `prefix`, reads it back, deletes it. A failure is an answer (ok false, the stage, a reason word and a
   * sentence), not an error.
   */
  probeDestination(argument: _slipway_agent_v1_ProbeDestinationRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ProbeDestinationResponse__Output>): grpc.ClientUnaryCall;
  probeDestination(argument: _slipway_agent_v1_ProbeDestinationRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ProbeDestinationResponse__Output>): grpc.ClientUnaryCall;
  probeDestination(argument: _slipway_agent_v1_ProbeDestinationRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ProbeDestinationResponse__Output>): grpc.ClientUnaryCall;
  probeDestination(argument: _slipway_agent_v1_ProbeDestinationRequest, callback: grpc.requestCallback<_slipway_agent_v1_ProbeDestinationResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The file: first `info` (size, SHA-256), then data chunks.
   */
  ReadBackup(argument: _slipway_agent_v1_ReadBackupRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ReadBackupChunk__Output>;
  ReadBackup(argument: _slipway_agent_v1_ReadBackupRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ReadBackupChunk__Output>;
  /**
   * The file: first `info` (size, SHA-256), then data chunks.
   */
  readBackup(argument: _slipway_agent_v1_ReadBackupRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ReadBackupChunk__Output>;
  readBackup(argument: _slipway_agent_v1_ReadBackupRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ReadBackupChunk__Output>;
  
  /**
   * Loads the backup `backup_id` of `source_database_id` into the running database `database_id` (same engine):
   * connections cut, data replaced, credentials kept.
   */
  RestoreBackup(argument: _slipway_agent_v1_RestoreBackupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RestoreBackupResponse__Output>): grpc.ClientUnaryCall;
  RestoreBackup(argument: _slipway_agent_v1_RestoreBackupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RestoreBackupResponse__Output>): grpc.ClientUnaryCall;
  RestoreBackup(argument: _slipway_agent_v1_RestoreBackupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RestoreBackupResponse__Output>): grpc.ClientUnaryCall;
  RestoreBackup(argument: _slipway_agent_v1_RestoreBackupRequest, callback: grpc.requestCallback<_slipway_agent_v1_RestoreBackupResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Loads the backup `backup_id` of `source_database_id` into the running database `database_id` (same engine):
   * connections cut, data replaced, credentials kept.
   */
  restoreBackup(argument: _slipway_agent_v1_RestoreBackupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RestoreBackupResponse__Output>): grpc.ClientUnaryCall;
  restoreBackup(argument: _slipway_agent_v1_RestoreBackupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RestoreBackupResponse__Output>): grpc.ClientUnaryCall;
  restoreBackup(argument: _slipway_agent_v1_RestoreBackupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RestoreBackupResponse__Output>): grpc.ClientUnaryCall;
  restoreBackup(argument: _slipway_agent_v1_RestoreBackupRequest, callback: grpc.requestCallback<_slipway_agent_v1_RestoreBackupResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Proves a backup restorable without touching the database: checksum, then `pg_restore --file=/dev/null` (postgres: the whole archive), the
   * dump's header, completion line and no USE (mysql), the RDB header and end marker (redis).
   */
  VerifyBackup(argument: _slipway_agent_v1_BackupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_VerifyBackupResponse__Output>): grpc.ClientUnaryCall;
  VerifyBackup(argument: _slipway_agent_v1_BackupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_VerifyBackupResponse__Output>): grpc.ClientUnaryCall;
  VerifyBackup(argument: _slipway_agent_v1_BackupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_VerifyBackupResponse__Output>): grpc.ClientUnaryCall;
  VerifyBackup(argument: _slipway_agent_v1_BackupRequest, callback: grpc.requestCallback<_slipway_agent_v1_VerifyBackupResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Proves a backup restorable without touching the database: checksum, then `pg_restore --file=/dev/null` (postgres: the whole archive), the
   * dump's header, completion line and no USE (mysql), the RDB header and end marker (redis).
   */
  verifyBackup(argument: _slipway_agent_v1_BackupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_VerifyBackupResponse__Output>): grpc.ClientUnaryCall;
  verifyBackup(argument: _slipway_agent_v1_BackupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_VerifyBackupResponse__Output>): grpc.ClientUnaryCall;
  verifyBackup(argument: _slipway_agent_v1_BackupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_VerifyBackupResponse__Output>): grpc.ClientUnaryCall;
  verifyBackup(argument: _slipway_agent_v1_BackupRequest, callback: grpc.requestCallback<_slipway_agent_v1_VerifyBackupResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface BackupsHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Dumps the database into the backup `backup_id`. A repeat with the same id answers the file already made
   * (`replayed`).
   */
  CreateBackup: grpc.handleUnaryCall<_slipway_agent_v1_BackupRequest__Output, _slipway_agent_v1_BackupFile>;
  
  /**
   * File and record removed; idempotent.
   */
  DeleteBackup: grpc.handleUnaryCall<_slipway_agent_v1_ReadBackupRequest__Output, _slipway_agent_v1_DeleteBackupResponse>;
  
  /**
   * Issue 33: the destination test call, run from the server whose backups go there: writes a small probe object
   * under `prefix`, reads it back, deletes it. A failure is an answer (ok false, the stage, a reason word and a
   * sentence), not an error.
   */
  ProbeDestination: grpc.handleUnaryCall<_slipway_agent_v1_ProbeDestinationRequest__Output, _slipway_agent_v1_ProbeDestinationResponse>;
  
  /**
   * The file: first `info` (size, SHA-256), then data chunks.
   */
  ReadBackup: grpc.handleServerStreamingCall<_slipway_agent_v1_ReadBackupRequest__Output, _slipway_agent_v1_ReadBackupChunk>;
  
  /**
   * Loads the backup `backup_id` of `source_database_id` into the running database `database_id` (same engine):
   * connections cut, data replaced, credentials kept.
   */
  RestoreBackup: grpc.handleUnaryCall<_slipway_agent_v1_RestoreBackupRequest__Output, _slipway_agent_v1_RestoreBackupResponse>;
  
  /**
   * Proves a backup restorable without touching the database: checksum, then `pg_restore --file=/dev/null` (postgres: the whole archive), the
   * dump's header, completion line and no USE (mysql), the RDB header and end marker (redis).
   */
  VerifyBackup: grpc.handleUnaryCall<_slipway_agent_v1_BackupRequest__Output, _slipway_agent_v1_VerifyBackupResponse>;
  
}

export interface BackupsDefinition extends grpc.ServiceDefinition {
  CreateBackup: MethodDefinition<_slipway_agent_v1_BackupRequest, _slipway_agent_v1_BackupFile, _slipway_agent_v1_BackupRequest__Output, _slipway_agent_v1_BackupFile__Output>
  DeleteBackup: MethodDefinition<_slipway_agent_v1_ReadBackupRequest, _slipway_agent_v1_DeleteBackupResponse, _slipway_agent_v1_ReadBackupRequest__Output, _slipway_agent_v1_DeleteBackupResponse__Output>
  ProbeDestination: MethodDefinition<_slipway_agent_v1_ProbeDestinationRequest, _slipway_agent_v1_ProbeDestinationResponse, _slipway_agent_v1_ProbeDestinationRequest__Output, _slipway_agent_v1_ProbeDestinationResponse__Output>
  ReadBackup: MethodDefinition<_slipway_agent_v1_ReadBackupRequest, _slipway_agent_v1_ReadBackupChunk, _slipway_agent_v1_ReadBackupRequest__Output, _slipway_agent_v1_ReadBackupChunk__Output>
  RestoreBackup: MethodDefinition<_slipway_agent_v1_RestoreBackupRequest, _slipway_agent_v1_RestoreBackupResponse, _slipway_agent_v1_RestoreBackupRequest__Output, _slipway_agent_v1_RestoreBackupResponse__Output>
  VerifyBackup: MethodDefinition<_slipway_agent_v1_BackupRequest, _slipway_agent_v1_VerifyBackupResponse, _slipway_agent_v1_BackupRequest__Output, _slipway_agent_v1_VerifyBackupResponse__Output>
}
