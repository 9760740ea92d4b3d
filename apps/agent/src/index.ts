export { startAgent, NotEnrolledError, DEFAULT_NETWORKS, type AgentOptions, type BuildSettings, type RunningAgent } from './agent';
export { WorkspaceNetworks, type NetworkSettings } from './containers/networks';
export { DockerRuntime } from './containers/docker.runtime';
export { join, JoinError, type JoinOptions } from './node/join';
export { OperationJournal, type JournalEntry } from './rpc/journal';
export { readEnrollment, saveEnrollment, type Enrollment } from './node/tls-store';
export { LoopExt4Storage } from './storage/loop-ext4.storage';
export { CustomDomains, DEFAULT_DOMAIN_SETTINGS, type AcmeSettings, type CustomDomainSettings } from './ingress/custom-domains';
export { DEFAULT_METRICS, MetricsCollector, type MetricsSettings } from './metrics/collector';
