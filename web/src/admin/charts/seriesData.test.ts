import { describe, expect, it } from 'vitest';
import { toDashSeries } from './seriesData';

describe('toDashSeries', () => {
  it('sorts by time, drops bad times and duplicates, and zeros missing figures', () => {
    const s = toDashSeries([
      { t: '2026-01-01T01:00:00Z', calls: 2, tokens_charged: 1, revenue_cny: 3, online_hosts: 4, webhooks_pending: 5, webhooks_dead: 6 },
      { t: '2026-01-01T00:00:00Z', calls: 1, tokens_charged: 0, revenue_cny: 0, online_hosts: 1, webhooks_pending: 0, webhooks_dead: 0 },
      { t: 'nonsense', calls: 9, tokens_charged: 9, revenue_cny: 9, online_hosts: 9, webhooks_pending: 9, webhooks_dead: 9 },
      { t: '2026-01-01T01:00:00Z', calls: 7, tokens_charged: 7, revenue_cny: 7, online_hosts: 7, webhooks_pending: 7, webhooks_dead: 7 },
    ]);
    expect(s.t).toEqual([Date.parse('2026-01-01T00:00:00Z') / 1000, Date.parse('2026-01-01T01:00:00Z') / 1000]);
    expect(s.calls).toEqual([1, 2]);
    expect(s.revenue).toEqual([0, 3]);
    expect(s.online).toEqual([1, 4]);
    expect(s.dead).toEqual([0, 6]);
    expect(toDashSeries(null).t).toEqual([]);
  });
});
