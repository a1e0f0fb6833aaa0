import { describe, expect, it } from 'vitest';
import type { Metrics } from '../../api/types';
import { SINGLE_SAMPLE_SPAN, axisTimeOptions, axisTimeSpace, formatRate, rateUnit, timeRange, toSeries } from './metricsData';

const m = (at: string, cpu: number, rx = 0): Metrics => ({
  at,
  cpu_pct: cpu,
  mem_pct: 50,
  disk_pct: 10,
  net_rx_bps: rx,
  net_tx_bps: 2,
  tcp_conns: 1,
  uptime_s: 1,
});

describe('toSeries', () => {
  it('sorts newest-first rows ascending and splits the series', () => {
    const s = toSeries([m('2026-01-01T00:02:00Z', 30), m('2026-01-01T00:01:00Z', 20), m('2026-01-01T00:00:00Z', 10)]);
    expect(s.t).toEqual([1767225600, 1767225660, 1767225720]);
    expect(s.cpu).toEqual([10, 20, 30]);
    expect(s.mem).toEqual([50, 50, 50]);
    expect(s.tx).toEqual([2, 2, 2]);
  });

  it('drops bad times and duplicates, clamps percentages', () => {
    const s = toSeries([m('nope', 1), m('2026-01-01T00:00:00Z', 120, -5), m('2026-01-01T00:00:00Z', 3)]);
    expect(s.t).toHaveLength(1);
    expect(s.cpu).toEqual([100]);
    expect(s.rx).toEqual([0]);
  });

  it('handles no data', () => {
    expect(toSeries(null).t).toEqual([]);
  });
});

describe('rates', () => {
  it('picks a unit from the largest value', () => {
    expect(rateUnit(500)).toEqual({ div: 1, unit: 'B/s' });
    expect(rateUnit(2048)).toEqual({ div: 1024, unit: 'KB/s' });
    expect(rateUnit(5 * 1024 * 1024)).toEqual({ div: 1024 * 1024, unit: 'MB/s' });
  });

  it('formats a rate', () => {
    expect(formatRate('en', 1536)).toBe('1.5 KB/s');
    expect(formatRate('en', 12)).toBe('12 B/s');
    expect(formatRate('en', undefined)).toBe('—');
  });
});

describe('axisTimeOptions', () => {
  it('shows seconds for short spans and dates for long ones', () => {
    expect(axisTimeOptions(60)).toHaveProperty('second');
    expect(axisTimeOptions(3600)).not.toHaveProperty('second');
    expect(axisTimeOptions(3 * 86400)).toHaveProperty('day');
  });
  it('uses shorter labels on narrow charts, but keeps seconds where ticks are seconds apart', () => {
    expect(axisTimeOptions(60, true)).toHaveProperty('second');
    expect(axisTimeOptions(3 * 86400, true)).not.toHaveProperty('hour');
    expect(axisTimeOptions(3 * 86400, true)).toHaveProperty('day');
  });
});

describe('axisTimeSpace', () => {
  it('spaces ticks so at most a few fit a phone-width chart', () => {
    // a 390 px phone leaves about 280 px of plot: at most 3 ticks
    expect(Math.floor(280 / axisTimeSpace(280, 3600))).toBeLessThanOrEqual(3);
    expect(axisTimeSpace(280, 3 * 86400)).toBeGreaterThanOrEqual(80);
    expect(axisTimeSpace(1000, 3 * 86400)).toBeGreaterThan(axisTimeSpace(1000, 3600));
  });
});

describe('timeRange', () => {
  const t = 1_795_000_000;
  it('centres a single sample in a short span', () => {
    // What uPlot proposes for one time in seconds: 86400 / 1e-3 past it.
    expect(timeRange([t], t, t + 86_400_000)).toEqual([t - SINGLE_SAMPLE_SPAN / 2, t + SINGLE_SAMPLE_SPAN / 2]);
    expect(timeRange([t, t], t, t + 86_400_000)).toEqual([t - SINGLE_SAMPLE_SPAN / 2, t + SINGLE_SAMPLE_SPAN / 2]);
  });
  it('keeps the proposed range for several times and for a zoom', () => {
    expect(timeRange([t, t + 60, t + 120], t, t + 120)).toEqual([t, t + 120]);
    expect(timeRange([t, t + 60, t + 120], t + 10, t + 20)).toEqual([t + 10, t + 20]);
  });
  it('keeps the proposed range without data', () => {
    expect(timeRange([], 0, 1)).toEqual([0, 1]);
  });
});
