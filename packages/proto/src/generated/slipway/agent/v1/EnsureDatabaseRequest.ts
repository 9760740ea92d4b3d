// Original file: ../../proto/slipway/agent/v1/databases.proto

import type { DatabasePublicAccess as _slipway_agent_v1_DatabasePublicAccess, DatabasePublicAccess__Output as _slipway_agent_v1_DatabasePublicAccess__Output } from '../../../slipway/agent/v1/DatabasePublicAccess';
import type { DatabaseTls as _slipway_agent_v1_DatabaseTls, DatabaseTls__Output as _slipway_agent_v1_DatabaseTls__Output } from '../../../slipway/agent/v1/DatabaseTls';

export interface EnsureDatabaseRequest {
  'operationId'?: (string);
  'databaseId'?: (string);
  'workspaceId'?: (string);
  /**
   * DNS label; the container answers `<slug>.internal` on the workspace network.
   */
  'slug'?: (string);
  /**
   * postgres, mysql, redis, mongodb
   */
  'engine'?: (string);
  /**
   * The catalog version (recorded on the container's labels; the image decides what runs).
   */
  'version'?: (string);
  /**
   * Empty: the agent's configured image for the engine (SLIPWAY_IMAGE_*).
   */
  'image'?: (string);
  'cpuMillis'?: (number);
  'memoryMb'?: (number);
  /**
   * 0: no disk limit (reserved for later).
   */
  'diskMb'?: (number);
  /**
   * The engine's user and database (postgres, mysql, mongodb); redis: username "default", database "0".
   */
  'username'?: (string);
  'databaseName'?: (string);
  /**
   * The current password (plain, over mutual TLS). Never logged.
   */
  'password'?: (string);
  'public'?: (_slipway_agent_v1_DatabasePublicAccess | null);
  'tls'?: (_slipway_agent_v1_DatabaseTls | null);
  /**
   * Desired state: create/keep the container stopped.
   */
  'stopped'?: (boolean);
}

export interface EnsureDatabaseRequest__Output {
  'operationId': (string);
  'databaseId': (string);
  'workspaceId': (string);
  /**
   * DNS label; the container answers `<slug>.internal` on the workspace network.
   */
  'slug': (string);
  /**
   * postgres, mysql, redis, mongodb
   */
  'engine': (string);
  /**
   * The catalog version (recorded on the container's labels; the image decides what runs).
   */
  'version': (string);
  /**
   * Empty: the agent's configured image for the engine (SLIPWAY_IMAGE_*).
   */
  'image': (string);
  'cpuMillis': (number);
  'memoryMb': (number);
  /**
   * 0: no disk limit (reserved for later).
   */
  'diskMb': (number);
  /**
   * The engine's user and database (postgres, mysql, mongodb); redis: username "default", database "0".
   */
  'username': (string);
  'databaseName': (string);
  /**
   * The current password (plain, over mutual TLS). Never logged.
   */
  'password': (string);
  'public': (_slipway_agent_v1_DatabasePublicAccess__Output | null);
  'tls': (_slipway_agent_v1_DatabaseTls__Output | null);
  /**
   * Desired state: create/keep the container stopped.
   */
  'stopped': (boolean);
}
