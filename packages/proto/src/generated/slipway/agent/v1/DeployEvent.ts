// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { DeployResult as _slipway_agent_v1_DeployResult, DeployResult__Output as _slipway_agent_v1_DeployResult__Output } from '../../../slipway/agent/v1/DeployResult';

export interface DeployEvent {
  /**
   * A log line (without its newline); empty on the last message, which carries the result.
   */
  'line'?: (string);
  'result'?: (_slipway_agent_v1_DeployResult | null);
}

export interface DeployEvent__Output {
  /**
   * A log line (without its newline); empty on the last message, which carries the result.
   */
  'line': (string);
  'result': (_slipway_agent_v1_DeployResult__Output | null);
}
