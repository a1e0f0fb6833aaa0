// The dashboard's charts over time. uPlot is imported only here (through
// the host page's UPlotChart), in this lazy chunk.
import { Col, Row, Typography } from 'antd';
import { useCallback, useMemo } from 'react';
import type uPlot from 'uplot';
import { UPlotChart } from '../../features/host/UPlotChart';
import '../../features/host/host.css';
import { axisTimeOptions, axisTimeSpace, NARROW_AXIS_PX, timeRange } from '../../features/host/metricsData';
import { useFormat, useI18n } from '../../i18n';
import type { DashboardSeries } from '../types';
import { toDashSeries } from './seriesData';

const HEIGHT = 200;
const xScale: uPlot.Scale = { time: true, range: (u, min, max) => timeRange(u.data[0], min, max) };

export default function DashboardCharts({ series }: { series: DashboardSeries }) {
  const { t, lang } = useI18n();
  const fmt = useFormat();
  const s = useMemo(() => toDashSeries(series.items), [series]);
  const daily = series.bucket === 'day';

  const xAxis = useMemo<uPlot.Axis>(
    () => ({
      values: (u, splits) => {
        const span = (u.scales.x?.max ?? 0) - (u.scales.x?.min ?? 0);
        const o = daily
          ? ({ month: 'numeric', day: 'numeric' } as Intl.DateTimeFormatOptions)
          : axisTimeOptions(span, u.bbox.width / (window.devicePixelRatio || 1) < NARROW_AXIS_PX);
        const f = new Intl.DateTimeFormat(lang, o);
        return splits.map((v) => f.format(v * 1000));
      },
      space: (_u, _i, min, max, plotDim) => axisTimeSpace(plotDim, max - min),
      stroke: '#595959',
      grid: { stroke: '#f0f0f0' },
      ticks: { stroke: '#f0f0f0' },
    }),
    [lang, daily],
  );
  const xSeries = useMemo<uPlot.Series>(
    () => ({
      label: t('admin.dash.time'),
      value: (_u, v) => (v == null ? '—' : daily ? fmt.date(v * 1000) : fmt.dateTime(v * 1000)),
    }),
    [t, fmt, daily],
  );
  const yAxis = (scale: string, side: 0 | 1 = 0, f: (n: number) => string = (n) => fmt.number(n)): uPlot.Axis => ({
    scale,
    side: side === 1 ? 1 : 3,
    stroke: '#595959',
    grid: { show: side === 0, stroke: '#f0f0f0' },
    ticks: { stroke: '#f0f0f0' },
    size: 56,
    values: (_u, splits) => splits.map((v) => f(v)),
  });

  const money = useCallback(
    (width: number): uPlot.Options => ({
      width,
      height: HEIGHT,
      scales: { x: xScale, calls: { range: (_u, _min, max) => [0, Math.max(1, max)] }, cny: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [xAxis, yAxis('calls'), yAxis('cny', 1, (n) => `¥${fmt.number(n, 2)}`)],
      series: [
        xSeries,
        { label: t('admin.dash.calls'), scale: 'calls', stroke: '#1677ff', width: 2, value: (_u, v) => fmt.number(v) },
        { label: t('admin.dash.revenue'), scale: 'cny', stroke: '#52c41a', width: 2, value: (_u, v) => fmt.cny(v) },
      ],
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [xAxis, xSeries, t, fmt],
  );
  const hosts = useCallback(
    (width: number): uPlot.Options => ({
      width,
      height: HEIGHT,
      scales: { x: xScale, n: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [xAxis, yAxis('n')],
      series: [xSeries, { label: t('admin.dash.onlineHosts'), scale: 'n', stroke: '#13c2c2', width: 2, fill: 'rgba(19,194,194,0.12)', value: (_u, v) => fmt.number(v) }],
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [xAxis, xSeries, t, fmt],
  );
  const hooks = useCallback(
    (width: number): uPlot.Options => ({
      width,
      height: HEIGHT,
      scales: { x: xScale, n: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [xAxis, yAxis('n')],
      series: [
        xSeries,
        { label: t('admin.dash.webhooksPending'), scale: 'n', stroke: '#fa8c16', width: 2, value: (_u, v) => fmt.number(v) },
        { label: t('admin.dash.webhooksDead'), scale: 'n', stroke: '#f5222d', width: 2, value: (_u, v) => fmt.number(v) },
      ],
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [xAxis, xSeries, t, fmt],
  );

  const moneyData = useMemo<uPlot.AlignedData>(() => [s.t, s.calls, s.revenue], [s]);
  const hostsData = useMemo<uPlot.AlignedData>(() => [s.t, s.online], [s]);
  const hooksData = useMemo<uPlot.AlignedData>(() => [s.t, s.pending, s.dead], [s]);

  return (
    <Row gutter={[16, 16]} data-testid="dash-charts">
      <Col xs={24}>
        <Typography.Text strong>{t('admin.dash.callsRevenue')}</Typography.Text>
        <UPlotChart options={money} data={moneyData} label={t('admin.dash.callsRevenue')} />
      </Col>
      <Col xs={24} lg={12}>
        <Typography.Text strong>{t('admin.dash.onlineHosts')}</Typography.Text>
        <UPlotChart options={hosts} data={hostsData} label={t('admin.dash.onlineHosts')} />
      </Col>
      <Col xs={24} lg={12}>
        <Typography.Text strong>{t('admin.dash.webhookQueue')}</Typography.Text>
        <UPlotChart options={hooks} data={hooksData} label={t('admin.dash.webhookQueue')} />
      </Col>
    </Row>
  );
}
