// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { ManagedContainer as _slipway_agent_v1_ManagedContainer, ManagedContainer__Output as _slipway_agent_v1_ManagedContainer__Output } from '../../../slipway/agent/v1/ManagedContainer';

export interface ContainerEvent {
  'containerId'?: (string);
  /**
   * die, oom, or snapshot
   */
  'action'?: (string);
  'exitCode'?: (number);
  'labels'?: ({[key: string]: string});
  'atMs'?: (number | string);
  /**
   * With action "snapshot" (no container_id): every managed container and its state. Sent first on every watch,
   * and again whenever the agent has subscribed to the engine's events anew (the engine restarted), because
   * events may have been missed meanwhile.
   */
  'containers'?: (_slipway_agent_v1_ManagedContainer)[];
}

export interface ContainerEvent__Output {
  'containerId': (string);
  /**
   * die, oom, or snapshot
   */
  'action': (string);
  'exitCode': (number);
  'labels': ({[key: string]: string});
  'atMs': (number);
  /**
   * With action "snapshot" (no container_id): every managed container and its state. Sent first on every watch,
   * and again whenever the agent has subscribed to the engine's events anew (the engine restarted), because
   * events may have been missed meanwhile.
   */
  'containers': (_slipway_agent_v1_ManagedContainer__Output)[];
}
