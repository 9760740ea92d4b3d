// What the test harness (@slipway/testing/api, /platform) and the benchmarks compose the API from: the same
// functions main.ts uses.
export { createApp, type AppDeps } from './app';
export type { ContractViolation } from './http/operations';
export { databaseCheck, redisCheck } from './readiness';
export { agentGateways, apiRouter, createServices, settingsDeps, type ApiOptions, type ServiceDeps, type Services } from './services';
export { LatencyHistogram, renderMetrics, type MetricsSources } from './observability/prometheus';
export { metricsEndpoint, serveMetrics } from './observability/metrics.endpoint';
export { metricsSources } from './observability/sources';
