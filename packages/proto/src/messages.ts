// The message types handlers and clients use, re-exported from the generated files under one name each.
export type { ContainerEvent } from './generated/slipway/agent/v1/ContainerEvent';
export type { LogChunk } from './generated/slipway/agent/v1/LogChunk';
export type { ManagedContainer as ManagedContainerMessage } from './generated/slipway/agent/v1/ManagedContainer';
export type { NodeInfo } from './generated/slipway/agent/v1/NodeInfo';
export type { NoopRequest__Output as NoopRequest } from './generated/slipway/agent/v1/NoopRequest';
export type { NoopResponse } from './generated/slipway/agent/v1/NoopResponse';
