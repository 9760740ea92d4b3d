// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { ManagedContainer as _slipway_agent_v1_ManagedContainer, ManagedContainer__Output as _slipway_agent_v1_ManagedContainer__Output } from '../../../slipway/agent/v1/ManagedContainer';

export interface ContainerEvent {
  'containerId'?: (string);
  /**
   * die (exited), oom (the kernel's OOM killer struck; a die follows), destroy and start (with lifecycle only), or snapshot
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
  /**
   * Who caused it: "platform" (the agent itself: a stop, restart, retire or removal it made, one the control plane asked
   * for included), "external" (behind the platform's back: docker stop/kill/rm, the process exiting or crashing, the OOM
   * killer, the engine's restart policy). Empty from an agent older than issue 27.
   */
  'cause'?: (string);
  /**
   * On a die: the kernel's OOM killer ended the process.
   */
  'oomKilled'?: (boolean);
  /**
   * On a die: the signal a kill request sent just before it (15: a stop, docker stop; 9: docker kill, rm -f, or a stop
   * whose grace ran out); 0: the process exited on its own.
   */
  'signal'?: (number);
  /**
   * What happened, as a sentence ("The container was stopped behind the platform's back (docker stop)"); empty on a
   * snapshot and from agents older than issue 27.
   */
  'reason'?: (string);
  /**
   * On a die: the container is a release inside its settle window (decision 0038): the agent judges it and reports the
   * verdict on the listing (settle_failure), so the control plane's crash watch leaves it to the comparison.
   */
  'settling'?: (boolean);
}

export interface ContainerEvent__Output {
  'containerId': (string);
  /**
   * die (exited), oom (the kernel's OOM killer struck; a die follows), destroy and start (with lifecycle only), or snapshot
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
  /**
   * Who caused it: "platform" (the agent itself: a stop, restart, retire or removal it made, one the control plane asked
   * for included), "external" (behind the platform's back: docker stop/kill/rm, the process exiting or crashing, the OOM
   * killer, the engine's restart policy). Empty from an agent older than issue 27.
   */
  'cause': (string);
  /**
   * On a die: the kernel's OOM killer ended the process.
   */
  'oomKilled': (boolean);
  /**
   * On a die: the signal a kill request sent just before it (15: a stop, docker stop; 9: docker kill, rm -f, or a stop
   * whose grace ran out); 0: the process exited on its own.
   */
  'signal': (number);
  /**
   * What happened, as a sentence ("The container was stopped behind the platform's back (docker stop)"); empty on a
   * snapshot and from agents older than issue 27.
   */
  'reason': (string);
  /**
   * On a die: the container is a release inside its settle window (decision 0038): the agent judges it and reports the
   * verdict on the listing (settle_failure), so the control plane's crash watch leaves it to the comparison.
   */
  'settling': (boolean);
}
