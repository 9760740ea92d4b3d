// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { AppRoute as _slipway_agent_v1_AppRoute, AppRoute__Output as _slipway_agent_v1_AppRoute__Output } from '../../../slipway/agent/v1/AppRoute';

export interface AppPowerRequest {
  'operationId'?: (string);
  'workspaceId'?: (string);
  'appId'?: (string);
  /**
   * start, stop, restart
   */
  'action'?: (string);
  'containerId'?: (string);
  'route'?: (_slipway_agent_v1_AppRoute | null);
  'stopGraceMs'?: (number);
}

export interface AppPowerRequest__Output {
  'operationId': (string);
  'workspaceId': (string);
  'appId': (string);
  /**
   * start, stop, restart
   */
  'action': (string);
  'containerId': (string);
  'route': (_slipway_agent_v1_AppRoute__Output | null);
  'stopGraceMs': (number);
}
