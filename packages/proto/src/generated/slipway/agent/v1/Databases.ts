// Original file: ../../proto/slipway/agent/v1/databases.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DatabaseEnginesRequest as _slipway_agent_v1_DatabaseEnginesRequest, DatabaseEnginesRequest__Output as _slipway_agent_v1_DatabaseEnginesRequest__Output } from '../../../slipway/agent/v1/DatabaseEnginesRequest';
import type { DatabaseEnginesResponse as _slipway_agent_v1_DatabaseEnginesResponse, DatabaseEnginesResponse__Output as _slipway_agent_v1_DatabaseEnginesResponse__Output } from '../../../slipway/agent/v1/DatabaseEnginesResponse';
import type { DatabaseStatus as _slipway_agent_v1_DatabaseStatus, DatabaseStatus__Output as _slipway_agent_v1_DatabaseStatus__Output } from '../../../slipway/agent/v1/DatabaseStatus';
import type { EnsureDatabaseRequest as _slipway_agent_v1_EnsureDatabaseRequest, EnsureDatabaseRequest__Output as _slipway_agent_v1_EnsureDatabaseRequest__Output } from '../../../slipway/agent/v1/EnsureDatabaseRequest';
import type { GetDatabaseCaRequest as _slipway_agent_v1_GetDatabaseCaRequest, GetDatabaseCaRequest__Output as _slipway_agent_v1_GetDatabaseCaRequest__Output } from '../../../slipway/agent/v1/GetDatabaseCaRequest';
import type { GetDatabaseCaResponse as _slipway_agent_v1_GetDatabaseCaResponse, GetDatabaseCaResponse__Output as _slipway_agent_v1_GetDatabaseCaResponse__Output } from '../../../slipway/agent/v1/GetDatabaseCaResponse';
import type { ListDatabasesRequest as _slipway_agent_v1_ListDatabasesRequest, ListDatabasesRequest__Output as _slipway_agent_v1_ListDatabasesRequest__Output } from '../../../slipway/agent/v1/ListDatabasesRequest';
import type { ListDatabasesResponse as _slipway_agent_v1_ListDatabasesResponse, ListDatabasesResponse__Output as _slipway_agent_v1_ListDatabasesResponse__Output } from '../../../slipway/agent/v1/ListDatabasesResponse';
import type { RemoveDatabaseRequest as _slipway_agent_v1_RemoveDatabaseRequest, RemoveDatabaseRequest__Output as _slipway_agent_v1_RemoveDatabaseRequest__Output } from '../../../slipway/agent/v1/RemoveDatabaseRequest';
import type { RemoveDatabaseResponse as _slipway_agent_v1_RemoveDatabaseResponse, RemoveDatabaseResponse__Output as _slipway_agent_v1_RemoveDatabaseResponse__Output } from '../../../slipway/agent/v1/RemoveDatabaseResponse';
import type { RotateDatabasePasswordRequest as _slipway_agent_v1_RotateDatabasePasswordRequest, RotateDatabasePasswordRequest__Output as _slipway_agent_v1_RotateDatabasePasswordRequest__Output } from '../../../slipway/agent/v1/RotateDatabasePasswordRequest';
import type { SetDatabasePublicAccessRequest as _slipway_agent_v1_SetDatabasePublicAccessRequest, SetDatabasePublicAccessRequest__Output as _slipway_agent_v1_SetDatabasePublicAccessRequest__Output } from '../../../slipway/agent/v1/SetDatabasePublicAccessRequest';
import type { StopDatabaseRequest as _slipway_agent_v1_StopDatabaseRequest, StopDatabaseRequest__Output as _slipway_agent_v1_StopDatabaseRequest__Output } from '../../../slipway/agent/v1/StopDatabaseRequest';

export interface DatabasesClient extends grpc.Client {
  /**
   * Which engine images this server can run now (for GET /v1/database-engines and the 503 on create).
   */
  DatabaseEngines(argument: _slipway_agent_v1_DatabaseEnginesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseEnginesResponse__Output>): grpc.ClientUnaryCall;
  DatabaseEngines(argument: _slipway_agent_v1_DatabaseEnginesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseEnginesResponse__Output>): grpc.ClientUnaryCall;
  DatabaseEngines(argument: _slipway_agent_v1_DatabaseEnginesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseEnginesResponse__Output>): grpc.ClientUnaryCall;
  DatabaseEngines(argument: _slipway_agent_v1_DatabaseEnginesRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseEnginesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Which engine images this server can run now (for GET /v1/database-engines and the 503 on create).
   */
  databaseEngines(argument: _slipway_agent_v1_DatabaseEnginesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseEnginesResponse__Output>): grpc.ClientUnaryCall;
  databaseEngines(argument: _slipway_agent_v1_DatabaseEnginesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseEnginesResponse__Output>): grpc.ClientUnaryCall;
  databaseEngines(argument: _slipway_agent_v1_DatabaseEnginesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseEnginesResponse__Output>): grpc.ClientUnaryCall;
  databaseEngines(argument: _slipway_agent_v1_DatabaseEnginesRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseEnginesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Creates the container on the database's data, or recreates it when its spec changed (image, size, password
   * of a fresh data folder, public access); starts it unless `stopped`; answers once the engine accepts an
   * authenticated connection (state "running") or, with `stopped`, once the container exists and is stopped.
   * A database whose data folder is empty is initialised from the request (username, database name, password).
   * Also applies `public` (listener opened, moved or closed). Idempotent: a matching running container is kept.
   */
  EnsureDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  EnsureDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  EnsureDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  EnsureDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  /**
   * Creates the container on the database's data, or recreates it when its spec changed (image, size, password
   * of a fresh data folder, public access); starts it unless `stopped`; answers once the engine accepts an
   * authenticated connection (state "running") or, with `stopped`, once the container exists and is stopped.
   * A database whose data folder is empty is initialised from the request (username, database name, password).
   * Also applies `public` (listener opened, moved or closed). Idempotent: a matching running container is kept.
   */
  ensureDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  ensureDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  ensureDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  ensureDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  
  /**
   * The CA of the agent's own databases certificate (used when Ensure brings no `tls`); a control plane that sends
   * its own certificate hands out its own CA instead.
   */
  GetDatabaseCa(argument: _slipway_agent_v1_GetDatabaseCaRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_GetDatabaseCaResponse__Output>): grpc.ClientUnaryCall;
  GetDatabaseCa(argument: _slipway_agent_v1_GetDatabaseCaRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_GetDatabaseCaResponse__Output>): grpc.ClientUnaryCall;
  GetDatabaseCa(argument: _slipway_agent_v1_GetDatabaseCaRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_GetDatabaseCaResponse__Output>): grpc.ClientUnaryCall;
  GetDatabaseCa(argument: _slipway_agent_v1_GetDatabaseCaRequest, callback: grpc.requestCallback<_slipway_agent_v1_GetDatabaseCaResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The CA of the agent's own databases certificate (used when Ensure brings no `tls`); a control plane that sends
   * its own certificate hands out its own CA instead.
   */
  getDatabaseCa(argument: _slipway_agent_v1_GetDatabaseCaRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_GetDatabaseCaResponse__Output>): grpc.ClientUnaryCall;
  getDatabaseCa(argument: _slipway_agent_v1_GetDatabaseCaRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_GetDatabaseCaResponse__Output>): grpc.ClientUnaryCall;
  getDatabaseCa(argument: _slipway_agent_v1_GetDatabaseCaRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_GetDatabaseCaResponse__Output>): grpc.ClientUnaryCall;
  getDatabaseCa(argument: _slipway_agent_v1_GetDatabaseCaRequest, callback: grpc.requestCallback<_slipway_agent_v1_GetDatabaseCaResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Every database this agent (platform) holds: container state, data present, public listener. For reconcile.
   */
  ListDatabases(argument: _slipway_agent_v1_ListDatabasesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListDatabasesResponse__Output>): grpc.ClientUnaryCall;
  ListDatabases(argument: _slipway_agent_v1_ListDatabasesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ListDatabasesResponse__Output>): grpc.ClientUnaryCall;
  ListDatabases(argument: _slipway_agent_v1_ListDatabasesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListDatabasesResponse__Output>): grpc.ClientUnaryCall;
  ListDatabases(argument: _slipway_agent_v1_ListDatabasesRequest, callback: grpc.requestCallback<_slipway_agent_v1_ListDatabasesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Every database this agent (platform) holds: container state, data present, public listener. For reconcile.
   */
  listDatabases(argument: _slipway_agent_v1_ListDatabasesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListDatabasesResponse__Output>): grpc.ClientUnaryCall;
  listDatabases(argument: _slipway_agent_v1_ListDatabasesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ListDatabasesResponse__Output>): grpc.ClientUnaryCall;
  listDatabases(argument: _slipway_agent_v1_ListDatabasesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListDatabasesResponse__Output>): grpc.ClientUnaryCall;
  listDatabases(argument: _slipway_agent_v1_ListDatabasesRequest, callback: grpc.requestCallback<_slipway_agent_v1_ListDatabasesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Removes the container, the public listener and the whole `databases/<id>` folder (data included).
   */
  RemoveDatabase(argument: _slipway_agent_v1_RemoveDatabaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveDatabaseResponse__Output>): grpc.ClientUnaryCall;
  RemoveDatabase(argument: _slipway_agent_v1_RemoveDatabaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveDatabaseResponse__Output>): grpc.ClientUnaryCall;
  RemoveDatabase(argument: _slipway_agent_v1_RemoveDatabaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveDatabaseResponse__Output>): grpc.ClientUnaryCall;
  RemoveDatabase(argument: _slipway_agent_v1_RemoveDatabaseRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveDatabaseResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Removes the container, the public listener and the whole `databases/<id>` folder (data included).
   */
  removeDatabase(argument: _slipway_agent_v1_RemoveDatabaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveDatabaseResponse__Output>): grpc.ClientUnaryCall;
  removeDatabase(argument: _slipway_agent_v1_RemoveDatabaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveDatabaseResponse__Output>): grpc.ClientUnaryCall;
  removeDatabase(argument: _slipway_agent_v1_RemoveDatabaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveDatabaseResponse__Output>): grpc.ClientUnaryCall;
  removeDatabase(argument: _slipway_agent_v1_RemoveDatabaseRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveDatabaseResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Applies a new password inside the running engine (ALTER ROLE / ALTER USER / CONFIG SET requirepass /
   * changeUserPassword), without a restart: data kept, the old password refused at once. The database must run.
   */
  RotateDatabasePassword(argument: _slipway_agent_v1_RotateDatabasePasswordRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  RotateDatabasePassword(argument: _slipway_agent_v1_RotateDatabasePasswordRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  RotateDatabasePassword(argument: _slipway_agent_v1_RotateDatabasePasswordRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  RotateDatabasePassword(argument: _slipway_agent_v1_RotateDatabasePasswordRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  /**
   * Applies a new password inside the running engine (ALTER ROLE / ALTER USER / CONFIG SET requirepass /
   * changeUserPassword), without a restart: data kept, the old password refused at once. The database must run.
   */
  rotateDatabasePassword(argument: _slipway_agent_v1_RotateDatabasePasswordRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  rotateDatabasePassword(argument: _slipway_agent_v1_RotateDatabasePasswordRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  rotateDatabasePassword(argument: _slipway_agent_v1_RotateDatabasePasswordRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  rotateDatabasePassword(argument: _slipway_agent_v1_RotateDatabasePasswordRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  
  /**
   * Opens, changes or closes the public listener. A new CIDR list applies to the next connection at once.
   */
  SetDatabasePublicAccess(argument: _slipway_agent_v1_SetDatabasePublicAccessRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  SetDatabasePublicAccess(argument: _slipway_agent_v1_SetDatabasePublicAccessRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  SetDatabasePublicAccess(argument: _slipway_agent_v1_SetDatabasePublicAccessRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  SetDatabasePublicAccess(argument: _slipway_agent_v1_SetDatabasePublicAccessRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  /**
   * Opens, changes or closes the public listener. A new CIDR list applies to the next connection at once.
   */
  setDatabasePublicAccess(argument: _slipway_agent_v1_SetDatabasePublicAccessRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  setDatabasePublicAccess(argument: _slipway_agent_v1_SetDatabasePublicAccessRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  setDatabasePublicAccess(argument: _slipway_agent_v1_SetDatabasePublicAccessRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  setDatabasePublicAccess(argument: _slipway_agent_v1_SetDatabasePublicAccessRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  
  /**
   * Starts the database: the same as EnsureDatabase with `stopped` false (recreates the container on its data when
   * it was removed by hand). Answers once the engine accepts an authenticated connection.
   */
  StartDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  StartDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  StartDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  StartDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  /**
   * Starts the database: the same as EnsureDatabase with `stopped` false (recreates the container on its data when
   * it was removed by hand). Answers once the engine accepts an authenticated connection.
   */
  startDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  startDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  startDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  startDatabase(argument: _slipway_agent_v1_EnsureDatabaseRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  
  /**
   * Stops the container (grace 30 s) and closes its public listener; the container, its data and its spec stay.
   */
  StopDatabase(argument: _slipway_agent_v1_StopDatabaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  StopDatabase(argument: _slipway_agent_v1_StopDatabaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  StopDatabase(argument: _slipway_agent_v1_StopDatabaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  StopDatabase(argument: _slipway_agent_v1_StopDatabaseRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  /**
   * Stops the container (grace 30 s) and closes its public listener; the container, its data and its spec stay.
   */
  stopDatabase(argument: _slipway_agent_v1_StopDatabaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  stopDatabase(argument: _slipway_agent_v1_StopDatabaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  stopDatabase(argument: _slipway_agent_v1_StopDatabaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  stopDatabase(argument: _slipway_agent_v1_StopDatabaseRequest, callback: grpc.requestCallback<_slipway_agent_v1_DatabaseStatus__Output>): grpc.ClientUnaryCall;
  
}

export interface DatabasesHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Which engine images this server can run now (for GET /v1/database-engines and the 503 on create).
   */
  DatabaseEngines: grpc.handleUnaryCall<_slipway_agent_v1_DatabaseEnginesRequest__Output, _slipway_agent_v1_DatabaseEnginesResponse>;
  
  /**
   * Creates the container on the database's data, or recreates it when its spec changed (image, size, password
   * of a fresh data folder, public access); starts it unless `stopped`; answers once the engine accepts an
   * authenticated connection (state "running") or, with `stopped`, once the container exists and is stopped.
   * A database whose data folder is empty is initialised from the request (username, database name, password).
   * Also applies `public` (listener opened, moved or closed). Idempotent: a matching running container is kept.
   */
  EnsureDatabase: grpc.handleUnaryCall<_slipway_agent_v1_EnsureDatabaseRequest__Output, _slipway_agent_v1_DatabaseStatus>;
  
  /**
   * The CA of the agent's own databases certificate (used when Ensure brings no `tls`); a control plane that sends
   * its own certificate hands out its own CA instead.
   */
  GetDatabaseCa: grpc.handleUnaryCall<_slipway_agent_v1_GetDatabaseCaRequest__Output, _slipway_agent_v1_GetDatabaseCaResponse>;
  
  /**
   * Every database this agent (platform) holds: container state, data present, public listener. For reconcile.
   */
  ListDatabases: grpc.handleUnaryCall<_slipway_agent_v1_ListDatabasesRequest__Output, _slipway_agent_v1_ListDatabasesResponse>;
  
  /**
   * Removes the container, the public listener and the whole `databases/<id>` folder (data included).
   */
  RemoveDatabase: grpc.handleUnaryCall<_slipway_agent_v1_RemoveDatabaseRequest__Output, _slipway_agent_v1_RemoveDatabaseResponse>;
  
  /**
   * Applies a new password inside the running engine (ALTER ROLE / ALTER USER / CONFIG SET requirepass /
   * changeUserPassword), without a restart: data kept, the old password refused at once. The database must run.
   */
  RotateDatabasePassword: grpc.handleUnaryCall<_slipway_agent_v1_RotateDatabasePasswordRequest__Output, _slipway_agent_v1_DatabaseStatus>;
  
  /**
   * Opens, changes or closes the public listener. A new CIDR list applies to the next connection at once.
   */
  SetDatabasePublicAccess: grpc.handleUnaryCall<_slipway_agent_v1_SetDatabasePublicAccessRequest__Output, _slipway_agent_v1_DatabaseStatus>;
  
  /**
   * Starts the database: the same as EnsureDatabase with `stopped` false (recreates the container on its data when
   * it was removed by hand). Answers once the engine accepts an authenticated connection.
   */
  StartDatabase: grpc.handleUnaryCall<_slipway_agent_v1_EnsureDatabaseRequest__Output, _slipway_agent_v1_DatabaseStatus>;
  
  /**
   * Stops the container (grace 30 s) and closes its public listener; the container, its data and its spec stay.
   */
  StopDatabase: grpc.handleUnaryCall<_slipway_agent_v1_StopDatabaseRequest__Output, _slipway_agent_v1_DatabaseStatus>;
  
}

export interface DatabasesDefinition extends grpc.ServiceDefinition {
  DatabaseEngines: MethodDefinition<_slipway_agent_v1_DatabaseEnginesRequest, _slipway_agent_v1_DatabaseEnginesResponse, _slipway_agent_v1_DatabaseEnginesRequest__Output, _slipway_agent_v1_DatabaseEnginesResponse__Output>
  EnsureDatabase: MethodDefinition<_slipway_agent_v1_EnsureDatabaseRequest, _slipway_agent_v1_DatabaseStatus, _slipway_agent_v1_EnsureDatabaseRequest__Output, _slipway_agent_v1_DatabaseStatus__Output>
  GetDatabaseCa: MethodDefinition<_slipway_agent_v1_GetDatabaseCaRequest, _slipway_agent_v1_GetDatabaseCaResponse, _slipway_agent_v1_GetDatabaseCaRequest__Output, _slipway_agent_v1_GetDatabaseCaResponse__Output>
  ListDatabases: MethodDefinition<_slipway_agent_v1_ListDatabasesRequest, _slipway_agent_v1_ListDatabasesResponse, _slipway_agent_v1_ListDatabasesRequest__Output, _slipway_agent_v1_ListDatabasesResponse__Output>
  RemoveDatabase: MethodDefinition<_slipway_agent_v1_RemoveDatabaseRequest, _slipway_agent_v1_RemoveDatabaseResponse, _slipway_agent_v1_RemoveDatabaseRequest__Output, _slipway_agent_v1_RemoveDatabaseResponse__Output>
  RotateDatabasePassword: MethodDefinition<_slipway_agent_v1_RotateDatabasePasswordRequest, _slipway_agent_v1_DatabaseStatus, _slipway_agent_v1_RotateDatabasePasswordRequest__Output, _slipway_agent_v1_DatabaseStatus__Output>
  SetDatabasePublicAccess: MethodDefinition<_slipway_agent_v1_SetDatabasePublicAccessRequest, _slipway_agent_v1_DatabaseStatus, _slipway_agent_v1_SetDatabasePublicAccessRequest__Output, _slipway_agent_v1_DatabaseStatus__Output>
  StartDatabase: MethodDefinition<_slipway_agent_v1_EnsureDatabaseRequest, _slipway_agent_v1_DatabaseStatus, _slipway_agent_v1_EnsureDatabaseRequest__Output, _slipway_agent_v1_DatabaseStatus__Output>
  StopDatabase: MethodDefinition<_slipway_agent_v1_StopDatabaseRequest, _slipway_agent_v1_DatabaseStatus, _slipway_agent_v1_StopDatabaseRequest__Output, _slipway_agent_v1_DatabaseStatus__Output>
}
