// Pure shaping of the stored metrics for the charts: the hub answers newest
// first; uPlot wants ascending x (seconds) and one array per series.
import type { Metrics } from '../../api/types';

export interface MetricSeries {
  /** Unix seconds, ascending. */
  t: number[];
  cpu: number[];
  mem: number[];
  disk: number[];
  rx: number[];
  tx: number[];
}

/** Sorts by time ascending and drops rows with an unreadable time or a duplicate time. */
export function toSeries(items: readonly Metrics[] | null | undefined): MetricSeries {
  const rows = (items ?? [])
    .map((m) => ({ m, at: Date.parse(m.at) / 1000 }))
    .filter((r) => Number.isFinite(r.at))
    .sort((a, b) => a.at - b.at);
  const out: MetricSeries = { t: [], cpu: [], mem: [], disk: [], rx: [], tx: [] };
  for (const { m, at } of rows) {
    if (out.t.length && out.t[out.t.length - 1] === at) continue;
    out.t.push(at);
    out.cpu.push(clampPct(m.cpu_pct));
    out.mem.push(clampPct(m.mem_pct));
    out.disk.push(clampPct(m.disk_pct));
    out.rx.push(Math.max(0, m.net_rx_bps));
    out.tx.push(Math.max(0, m.net_tx_bps));
  }
  return out;
}

function clampPct(v: number): number {
  return Number.isFinite(v) ? Math.min(100, Math.max(0, v)) : 0;
}

const RATE_UNITS = ['B/s', 'KB/s', 'MB/s', 'GB/s', 'TB/s'];

/** Picks one binary unit for a whole axis from its largest value: the divisor and the unit's name. */
export function rateUnit(max: number): { div: number; unit: string } {
  let i = 0;
  let v = Math.abs(max);
  while (v >= 1024 && i < RATE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return { div: 1024 ** i, unit: RATE_UNITS[i] ?? 'B/s' };
}

/** Bytes per second in a readable unit, e.g. "1.5 MB/s". */
export function formatRate(locale: string, bps: number | null | undefined): string {
  if (bps === null || bps === undefined || !Number.isFinite(bps)) return '—';
  const { div, unit } = rateUnit(bps);
  const n = new Intl.NumberFormat(locale, { maximumFractionDigits: div === 1 ? 0 : 1 }).format(bps / div);
  return `${n} ${unit}`;
}

/** The span (seconds) the time axis shows around a single sample. */
export const SINGLE_SAMPLE_SPAN = 60;

/**
 * The time axis's range, given the chart's times (seconds, ascending) and
 * the range uPlot proposes. uPlot widens a single time by 86400 / ms —
 * about 2.7 years for times in seconds — which puts the one sample of a
 * host that has just connected at the left edge under labels "1/1"; such
 * a sample is centred in SINGLE_SAMPLE_SPAN instead. Any other range
 * (the data's span, a zoom) is kept.
 */
export function timeRange(times: ArrayLike<number>, min: number, max: number): [number, number] {
  const first = times[0];
  if (times.length === 0 || first === undefined || times[times.length - 1] !== first) return [min, max];
  return [first - SINGLE_SAMPLE_SPAN / 2, first + SINGLE_SAMPLE_SPAN / 2];
}

/** Below this plot width (CSS px) the time axis uses fewer ticks and shorter labels. */
export const NARROW_AXIS_PX = 480;

/**
 * Intl options for time-axis labels: seconds for short spans (whose ticks
 * are seconds apart, so labels without them would repeat), the date for
 * long ones. `narrow` (a phone-width chart) drops the time on long spans,
 * so the labels stay short.
 */
export function axisTimeOptions(spanSeconds: number, narrow = false): Intl.DateTimeFormatOptions {
  const hm = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
  if (spanSeconds < 5 * 60) return { ...hm, second: '2-digit' };
  if (spanSeconds < 36 * 3600) return hm;
  return narrow ? { month: 'numeric', day: 'numeric' } : { month: 'numeric', day: 'numeric', ...hm };
}

/**
 * Minimum distance (CSS px) between time-axis ticks for a plot this wide:
 * wide enough for the longest label plus a gap, so labels never overlap;
 * roomier on narrow charts, which then get 2–4 ticks.
 */
export function axisTimeSpace(plotWidth: number, spanSeconds: number): number {
  const narrow = plotWidth < NARROW_AXIS_PX;
  const long = spanSeconds >= 36 * 3600;
  if (narrow) return long ? 80 : 90;
  return long ? 120 : 80;
}
