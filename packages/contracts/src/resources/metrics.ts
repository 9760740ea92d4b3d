// An app's resource use over time (spec 2.8, 4.2 and 8; API-DECISIONS "Metrics"): CPU, memory, network, disk I/O
// and the project folder, as series at the range's step.
import type { Resource } from '../resource';

export const METRICS_RANGES = ['1h', '24h', '7d', '30d'] as const;

const point = (description: string) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['at', 'value'],
    properties: {
      at: { type: 'string', format: 'date-time', description: 'start of the step (ISO 8601, UTC), aligned to the step' },
      value: { type: ['number', 'null'], minimum: 0, description },
    },
  }) as const;

const series = (description: string) => ({ type: 'array', maxItems: 360, items: point(description), description }) as const;

export const Metrics = {
  type: 'object',
  additionalProperties: false,
  required: ['range', 'stepSeconds', 'from', 'to', 'series'],
  properties: {
    range: { type: 'string', enum: METRICS_RANGES },
    stepSeconds: { type: 'integer', enum: [60, 300, 1800, 7200], description: '1h: 60; 24h: 300; 7d: 1800; 30d: 7200' },
    from: { type: 'string', format: 'date-time', description: 'start of the first step' },
    to: { type: 'string', format: 'date-time', description: 'end of the last step (exclusive); the last step is the one now falls in, still filling' },
    series: {
      type: 'object',
      additionalProperties: false,
      required: ['cpuMillis', 'memoryMb', 'networkRxBytes', 'networkTxBytes', 'diskReadBytes', 'diskWriteBytes', 'folderMb'],
      properties: {
        cpuMillis: series('CPU in millicores (1000 = one core busy): the average over the step, over the time the app ran in it'),
        memoryMb: series('memory in MB without the page cache the kernel can drop: the highest minute of the step'),
        networkRxBytes: series("bytes received by the app's containers during the step"),
        networkTxBytes: series("bytes sent by the app's containers during the step"),
        diskReadBytes: series("bytes the app's containers read from block devices during the step"),
        diskWriteBytes: series("bytes the app's containers wrote to block devices during the step"),
        folderMb: series('size of the project folder in MB: the largest measurement of the step (measured every few minutes)'),
      },
    },
  },
} as const;

export const MetricsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    range: { type: 'string', enum: METRICS_RANGES, default: '1h', description: 'the window ending now: 1h (1-minute steps), 24h (5 min), 7d (30 min), 30d (2 h)' },
  },
} as const;

export const METRICS = {
  tag: { name: 'metrics', description: "an app's CPU, memory, network, disk I/O and project folder over time" },
  schemas: { Metrics },
  operations: {
    getAppMetrics: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/metrics',
      tag: 'metrics',
      summary: "The app's resource use over 1h, 24h, 7d or 30d, one point per step",
      description:
        'Each series has one point per step of the range (60, 288, 336 or 360), oldest first, `at` the start of the step, aligned ' +
        'to the step on the epoch; `value` is null where no sample exists (the app was not running, or its server was unreachable ' +
        'and is still catching up). The server samples every 10 s and keeps one row per minute for 31 days: CPU is the average of ' +
        "the step, memory its highest minute, bytes the step's total, the folder its largest measurement. All containers of the " +
        'app add up (two during a rollout). A range other than the four is 400 `validation_failed`.',
      auth: 'any',
      permission: 'apps.read',
      query: MetricsQuery,
      success: { status: 200, description: 'the series of the range', schema: Metrics },
    },
  },
} as const satisfies Resource;
