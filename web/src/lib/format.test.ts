import { describe, expect, it } from 'vitest';
import { formatBytes, formatCNY, formatDateTime, formatDuration, formatNumber, formatPercent, formatTokens } from './format';

describe('format', () => {
  it('formats numbers with the locale', () => {
    expect(formatNumber('en', 1234567.891)).toBe('1,234,567.89');
    expect(formatTokens('en', 0.5)).toBe('0.5');
    expect(formatTokens('zh-CN', 12345.125)).toBe('12,345.125');
    expect(formatNumber('en', undefined)).toBe('—');
    expect(formatNumber('en', NaN)).toBe('—');
  });

  it('formats CNY money', () => {
    expect(formatCNY('en', 10)).toBe('CN¥10.00');
    expect(formatCNY('zh-CN', 10)).toBe('¥10.00');
  });

  it('formats dates in the given locale, and absent ones as a dash', () => {
    const d = '2026-11-26T04:21:45Z';
    expect(formatDateTime('en', d)).toBe(new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(d)));
    expect(formatDateTime('zh-CN', d)).toMatch(/2026/);
    expect(formatDateTime('en', undefined)).toBe('—');
    expect(formatDateTime('en', 'not a date')).toBe('—');
  });

  it('formats bytes, percentages and durations', () => {
    expect(formatBytes('en', 512)).toBe('512 B');
    expect(formatBytes('en', 1536)).toBe('1.5 KB');
    expect(formatBytes('en', 8 * 1024 ** 3)).toBe('8 GB');
    expect(formatPercent('en', 42.56)).toBe('42.6%');
    expect(formatDuration(42)).toBe('42s');
    expect(formatDuration(3 * 86400 + 4 * 3600 + 5)).toBe('3d 4h');
  });
});
