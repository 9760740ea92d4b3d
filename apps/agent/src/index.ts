export { startAgent, NotEnrolledError, type AgentOptions, type RunningAgent } from './agent';
export { DockerRuntime } from './docker.runtime';
export { join, JoinError, type JoinOptions } from './join';
export { OperationJournal, type JournalEntry } from './journal';
export { readEnrollment, saveEnrollment, type Enrollment } from './tls-store';
