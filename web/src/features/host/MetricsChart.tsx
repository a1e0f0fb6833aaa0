// The host's stored metrics: CPU / memory / disk % in one chart, network
// receive / transmit rates in another; refetched every 30 s. The admin
// console's host page shows it too, reading the admin route (`source`).
import { Card, Empty, Flex, Segmented, Skeleton, Typography } from 'antd';
import { useCallback, useMemo, useState } from 'react';
import type uPlot from 'uplot';
import { useFormat, useI18n } from '../../i18n';
import { ErrorState } from '../../ui/ErrorState';
import { useMetrics, type MetricsSource } from './hooks';
import { NARROW_AXIS_PX, axisTimeOptions, axisTimeSpace, formatRate, rateUnit, timeRange, toSeries } from './metricsData';
import { UPlotChart } from './UPlotChart';

const LIMITS = [60, 360, 1440] as const;
/** The agent's default report period (welcome.metrics_s, docs/agent.md). */
const REPORT_EVERY_S = 60;

const xScale: uPlot.Scale = { time: true, range: (u, min, max) => timeRange(u.data[0], min, max) };
const HEIGHT = 220;

const COLORS = { cpu: '#1677ff', mem: '#52c41a', disk: '#fa8c16', rx: '#13c2c2', tx: '#eb2f96' };

export function MetricsChart({ hostId, source }: { hostId: string; source?: MetricsSource }) {
  const { t, lang } = useI18n();
  const fmt = useFormat();
  const [limit, setLimit] = useState<number>(LIMITS[0]);
  const q = useMetrics(hostId, limit, source);
  const s = useMemo(() => toSeries(q.data?.items), [q.data]);

  const pctData = useMemo<uPlot.AlignedData>(() => [s.t, s.cpu, s.mem, s.disk], [s]);
  // Network rates are plotted in one unit picked from the largest value, so
  // the axis gets round numbers; the legend shows each value in its own unit.
  const unit = useMemo(() => rateUnit(Math.max(0, ...s.rx, ...s.tx)), [s]);
  const netData = useMemo<uPlot.AlignedData>(
    () => [s.t, s.rx.map((v) => v / unit.div), s.tx.map((v) => v / unit.div)],
    [s, unit.div],
  );

  const xAxis = useMemo<uPlot.Axis>(
    () => ({
      // Label format and tick spacing follow the plot's current width (it
      // changes on resize without new options), so labels never overlap.
      values: (u, splits) => {
        const span = (u.scales.x?.max ?? 0) - (u.scales.x?.min ?? 0);
        const f = new Intl.DateTimeFormat(lang, axisTimeOptions(span, u.bbox.width / (window.devicePixelRatio || 1) < NARROW_AXIS_PX));
        return splits.map((v) => f.format(v * 1000));
      },
      space: (_u, _i, min, max, plotDim) => axisTimeSpace(plotDim, max - min),
      stroke: '#595959',
      grid: { stroke: '#f0f0f0' },
      ticks: { stroke: '#f0f0f0' },
    }),
    [lang],
  );
  const xSeries = useMemo<uPlot.Series>(
    () => ({ label: t('host.metrics.time'), value: (_u, v) => (v == null ? '—' : fmt.dateTime(v * 1000)) }),
    [t, fmt],
  );

  const pctOptions = useCallback(
    (width: number): uPlot.Options => ({
      width,
      height: HEIGHT,
      scales: { x: xScale, y: { range: [0, 100] } },
      axes: [
        xAxis,
        {
          values: (_u, splits) => splits.map((v) => `${v}%`),
          stroke: '#595959',
          grid: { stroke: '#f0f0f0' },
          ticks: { stroke: '#f0f0f0' },
          size: 50,
        },
      ],
      series: [
        xSeries,
        { label: t('host.metrics.cpu'), stroke: COLORS.cpu, width: 2, value: (_u, v) => fmt.percent(v) },
        { label: t('host.metrics.mem'), stroke: COLORS.mem, width: 2, value: (_u, v) => fmt.percent(v) },
        { label: t('host.metrics.disk'), stroke: COLORS.disk, width: 2, value: (_u, v) => fmt.percent(v) },
      ],
    }),
    [t, fmt, xAxis, xSeries],
  );

  const netOptions = useCallback(
    (width: number): uPlot.Options => ({
      width,
      height: HEIGHT,
      scales: { x: xScale, y: { range: (_u, _min, max) => [0, Math.max(max, 1) * 1.1] } },
      axes: [
        xAxis,
        {
          values: (_u, splits) => splits.map((v) => fmt.number(v, 2)),
          label: unit.unit,
          labelSize: 18,
          stroke: '#595959',
          grid: { stroke: '#f0f0f0' },
          ticks: { stroke: '#f0f0f0' },
          size: 56,
        },
      ],
      series: [
        xSeries,
        { label: t('host.metrics.rx'), stroke: COLORS.rx, width: 2, value: (_u, v) => formatRate(lang, v == null ? v : v * unit.div) },
        { label: t('host.metrics.tx'), stroke: COLORS.tx, width: 2, value: (_u, v) => formatRate(lang, v == null ? v : v * unit.div) },
      ],
    }),
    [t, fmt, lang, unit.div, unit.unit, xAxis, xSeries],
  );

  let body;
  if (q.isPending) {
    body = (
      <Flex vertical gap={16}>
        <Skeleton.Node active style={{ width: '100%', height: HEIGHT }} />
        <Skeleton.Node active style={{ width: '100%', height: HEIGHT }} />
      </Flex>
    );
  } else if (q.isError && !q.data) {
    body = <ErrorState error={q.error} onRetry={() => void q.refetch()} />;
  } else if (s.t.length === 0) {
    body = (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={t('host.metrics.empty', { seconds: REPORT_EVERY_S })}
      />
    );
  } else {
    body = (
      <Flex vertical gap={16}>
        <div>
          <Typography.Text strong>{t('host.metrics.usage')}</Typography.Text>
          <UPlotChart options={pctOptions} data={pctData} label={t('host.metrics.usageLabel')} />
        </div>
        <div>
          <Typography.Text strong>{t('host.metrics.network')}</Typography.Text>
          <UPlotChart options={netOptions} data={netData} label={t('host.metrics.networkLabel')} />
        </div>
      </Flex>
    );
  }

  return (
    <Card
      title={t('host.metrics.title')}
      extra={
        <Segmented<number>
          size="small"
          aria-label={t('host.metrics.range')}
          value={limit}
          onChange={setLimit}
          options={LIMITS.map((l) => ({ value: l, label: t(`host.metrics.limit.${l}`) }))}
        />
      }
    >
      <div data-testid="metrics-chart" data-points={s.t.length}>
        {body}
      </div>
    </Card>
  );
}
