// The schedules page's pure helpers: a first check of a five-field cron line
// (the hub's parser decides), the one-off time from a datetime-local input,
// and the time zones to offer.

const FIELD = /^(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/[0-9]+)?(,(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/[0-9]+)?)*$/;

/** Whether a line looks like a standard five-field cron expression (or a `@daily`-style descriptor). */
export function looksLikeCron(s: string): boolean {
  const t = s.trim();
  if (/^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/.test(t)) return true;
  if (/^@every\s+\S+$/.test(t)) return true;
  const parts = t.split(/\s+/);
  return parts.length === 5 && parts.every((p) => FIELD.test(p));
}

/** A `datetime-local` value (the browser's zone) as RFC 3339 UTC, or null when it is not a time. */
export function localInputToISO(v: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(v)) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The IANA zones the browser knows, UTC first; the browser's own zone is always in the list. */
export function timeZones(): string[] {
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
  let all: string[];
  try {
    all = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  } catch {
    all = [];
  }
  const out = ['UTC', ...all.filter((z) => z !== 'UTC')];
  if (own && !out.includes(own)) out.push(own);
  return out;
}
