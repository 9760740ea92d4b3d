// Original file: ../../proto/slipway/agent/v1/build.proto

import type { BuildResult as _slipway_agent_v1_BuildResult, BuildResult__Output as _slipway_agent_v1_BuildResult__Output } from '../../../slipway/agent/v1/BuildResult';

export interface BuildEvent {
  /**
   * Log lines joined by \n (a batch, sent every 50 ms or 64 KB); empty on the last message, which carries the result.
   */
  'line'?: (string);
  'result'?: (_slipway_agent_v1_BuildResult | null);
}

export interface BuildEvent__Output {
  /**
   * Log lines joined by \n (a batch, sent every 50 ms or 64 KB); empty on the last message, which carries the result.
   */
  'line': (string);
  'result': (_slipway_agent_v1_BuildResult__Output | null);
}
