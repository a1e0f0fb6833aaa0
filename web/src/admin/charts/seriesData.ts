// Pure shaping of GET /v1/admin/dashboard/series for uPlot: ascending x in
// seconds and one array per figure.
import type { SeriesPoint } from '../types';

export interface DashSeries {
  t: number[];
  calls: number[];
  revenue: number[];
  online: number[];
  pending: number[];
  dead: number[];
}

export function toDashSeries(items: readonly SeriesPoint[] | null | undefined): DashSeries {
  const rows = (items ?? [])
    .map((p) => ({ p, at: Date.parse(p.t) / 1000 }))
    .filter((r) => Number.isFinite(r.at))
    .sort((a, b) => a.at - b.at);
  const out: DashSeries = { t: [], calls: [], revenue: [], online: [], pending: [], dead: [] };
  for (const { p, at } of rows) {
    if (out.t.length && out.t[out.t.length - 1] === at) continue;
    out.t.push(at);
    out.calls.push(num(p.calls));
    out.revenue.push(num(p.revenue_cny));
    out.online.push(num(p.online_hosts));
    out.pending.push(num(p.webhooks_pending));
    out.dead.push(num(p.webhooks_dead));
  }
  return out;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
