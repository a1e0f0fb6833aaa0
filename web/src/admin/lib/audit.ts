// The audit log's vocabulary: the actions the hub writes (internal/audit)
// and where each target type lives in the console.

export const AUDIT_ACTIONS = [
  'user.suspend',
  'user.resume',
  'user.balance.adjust',
  'recharge.refund',
  'pricing.create',
  'pricing.update',
  'billing.mode_change',
  'gw_version.publish',
  'gw_version.yank',
  'host.push_upgrade',
  'host.delete',
  'host.ban',
  'host.unban',
  'host.terminal_open',
  'admin.create',
  'admin.role_change',
  'admin.disable',
  'admin.enable',
] as const;

export const TARGET_TYPES = ['user', 'host', 'admin', 'pricing_rule', 'gw_version', 'recharge', 'billing'] as const;

/** The console page of an audit entry's target, or null when it has none. */
export function targetLink(type: string, id: string): string | null {
  switch (type) {
    case 'user':
      return `/admin/users/${encodeURIComponent(id)}`;
    case 'host':
      return `/admin/hosts/${encodeURIComponent(id)}`;
    case 'admin':
      return '/admin/admins';
    case 'pricing_rule':
    case 'billing':
      return '/admin/pricing';
    case 'gw_version':
    case 'version':
      return '/admin/versions';
    case 'recharge':
      return '/admin/recharges';
    default:
      return null;
  }
}

/** A datetime-local input's value (local time, no zone) → RFC 3339 UTC, or undefined. */
export function localToRFC3339(v: string | undefined): string | undefined {
  if (!v) return undefined;
  const ms = new Date(v).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/** RFC 3339 → a datetime-local input's value in local time (minutes), or ''. */
export function rfc3339ToLocal(v: string | undefined): string {
  if (!v) return '';
  const d = new Date(v);
  if (!Number.isFinite(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
