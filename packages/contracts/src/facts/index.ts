// Facts the control plane and the agent share (neither may own them alone): engines, allowlist ranges, redaction.
export * from './databases';
export * from './cidr';
export * from './redact';
