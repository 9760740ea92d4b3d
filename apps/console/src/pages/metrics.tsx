import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, unwrap, type App, type Schemas } from '../api';
import { useLoad } from '../hooks';
import { ErrorText, Loading, Select, useWorkspace } from '../ui';

type Range = Schemas['Metrics']['range'];
type Series = Schemas['Metrics']['series'];
const RANGES: readonly Range[] = ['1h', '24h', '7d', '30d'];
const CHARTS: { title: string; unit: string; series: { key: keyof Series; label: string; scale?: number }[] }[] = [
  { title: 'CPU', unit: 'vCPU', series: [{ key: 'cpuMillis', label: 'CPU', scale: 1 / 1000 }] },
  { title: 'Memory', unit: 'MB', series: [{ key: 'memoryMb', label: 'Memory' }] },
  { title: 'Network', unit: 'bytes', series: [{ key: 'networkRxBytes', label: 'Received' }, { key: 'networkTxBytes', label: 'Sent' }] },
  { title: 'Disk I/O', unit: 'bytes', series: [{ key: 'diskReadBytes', label: 'Read' }, { key: 'diskWriteBytes', label: 'Written' }] },
  { title: 'Project folder', unit: 'MB', series: [{ key: 'folderMb', label: 'Folder' }] },
];
const COLOURS = ['#2563eb', '#c2410c'];

function Chart({ title, unit, data, labels }: { title: string; unit: string; data: uPlot.AlignedData; labels: string[] }) {
  const el = useRef<HTMLDivElement>(null);
  const points = data.slice(1).reduce((n, s) => n + (s as (number | null)[]).filter((v) => v !== null).length, 0);
  useEffect(() => {
    if (!el.current) return;
    const plot = new uPlot(
      {
        width: Math.min(720, el.current.clientWidth || 720),
        height: 180,
        series: [{}, ...labels.map((label, i) => ({ label, stroke: COLOURS[i], width: 1.5, spanGaps: false }))],
        axes: [{}, { label: unit, size: 70 }],
      },
      data,
      el.current,
    );
    return () => plot.destroy();
  }, [data, labels, unit]);
  return (
    <figure className="chart" data-points={points}>
      <figcaption>
        {title} ({unit}) — {points} points
      </figcaption>
      <div ref={el} role="img" aria-label={`${title} chart, ${points} points`} />
    </figure>
  );
}

export function Metrics({ app }: { app: App }) {
  const { workspace } = useWorkspace();
  const [range, setRange] = useState<Range>('1h');
  const m = useLoad(
    () => unwrap(api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/metrics', { params: { path: { workspaceId: workspace.id, appId: app.id }, query: { range } } })),
    [app.id, range],
    60_000,
  );
  return (
    <div>
      <h2>Metrics</h2>
      <Select label="Range" value={range} options={RANGES} onChange={setRange} />
      <ErrorText error={m.error} />
      {!m.data ? (
        <Loading what="metrics" />
      ) : (
        CHARTS.map((c) => {
          const first = m.data!.series[c.series[0]!.key];
          const x = first.map((p) => Date.parse(p.at) / 1000);
          const ys = c.series.map((s) => m.data!.series[s.key].map((p) => (p.value === null ? null : p.value * (s.scale ?? 1))));
          return <Chart key={c.title} title={c.title} unit={c.unit} data={[x, ...ys] as uPlot.AlignedData} labels={c.series.map((s) => s.label)} />;
        })
      )}
    </div>
  );
}
