// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface WatchContainerEventsRequest {
  /**
   * Also send "destroy" (the container was removed) and "start" ((re)started) events. Off: only die, oom and snapshots,
   * as before issue 27 (a control plane that does not ask takes every other action for an exit).
   */
  'lifecycle'?: (boolean);
}

export interface WatchContainerEventsRequest__Output {
  /**
   * Also send "destroy" (the container was removed) and "start" ((re)started) events. Off: only die, oom and snapshots,
   * as before issue 27 (a control plane that does not ask takes every other action for an exit).
   */
  'lifecycle': (boolean);
}
