// Formatting for people, in the console's language and the browser's time
// zone. Every function takes the locale explicitly; components get bound
// versions from useFormat() (src/i18n).

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function nf(locale: string, opts: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = 'n' + locale + JSON.stringify(opts);
  let f = cache.get(key) as Intl.NumberFormat | undefined;
  if (!f) {
    f = new Intl.NumberFormat(locale, opts);
    cache.set(key, f);
  }
  return f;
}

function df(locale: string, opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = 'd' + locale + JSON.stringify(opts);
  let f = cache.get(key) as Intl.DateTimeFormat | undefined;
  if (!f) {
    f = new Intl.DateTimeFormat(locale, opts);
    cache.set(key, f);
  }
  return f;
}

const EMPTY = '—';

function toDate(v: string | number | Date | null | undefined): Date | null {
  if (v === null || v === undefined || v === '') return null;
  const d = v instanceof Date ? v : new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Date and time, e.g. "Nov 26, 2026, 4:21:05 AM" / "2026/11/26 04:21:05"; "—" when absent. */
export function formatDateTime(locale: string, v: string | number | Date | null | undefined): string {
  const d = toDate(v);
  return d ? df(locale, { dateStyle: 'medium', timeStyle: 'medium' }).format(d) : EMPTY;
}

/** Date only. */
export function formatDate(locale: string, v: string | number | Date | null | undefined): string {
  const d = toDate(v);
  return d ? df(locale, { dateStyle: 'medium' }).format(d) : EMPTY;
}

/** Time of day only, for chart axes. */
export function formatTime(locale: string, v: string | number | Date | null | undefined): string {
  const d = toDate(v);
  return d ? df(locale, { timeStyle: 'short' }).format(d) : EMPTY;
}

/** A plain number with grouping. */
export function formatNumber(locale: string, n: number | null | undefined, maxFraction = 2): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return EMPTY;
  return nf(locale, { maximumFractionDigits: maxFraction }).format(n);
}

/** Tokens: balances and prices are kept in thousandths, so up to 3 decimals. */
export function formatTokens(locale: string, n: number | null | undefined): string {
  return formatNumber(locale, n, 3);
}

/** Money in CNY, e.g. "CN¥10.00" / "¥10.00". */
export function formatCNY(locale: string, n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return EMPTY;
  return nf(locale, { style: 'currency', currency: 'CNY' }).format(n);
}

/** A percentage from 0..100, e.g. "42.5%". */
export function formatPercent(locale: string, pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return EMPTY;
  return nf(locale, { style: 'percent', maximumFractionDigits: 1 }).format(pct / 100);
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** Bytes in binary units, e.g. "1.5 GB". */
export function formatBytes(locale: string, n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return EMPTY;
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${formatNumber(locale, Math.sign(n) * v, i === 0 ? 0 : 1)} ${UNITS[i]}`;
}

/** A duration in seconds as "3d 4h", "5h 2m", "42s". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return EMPTY;
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${s % 60}s`;
  return `${s}s`;
}
