// Host status words and colours, shared by the list and the host page.
import { HOST_STATUSES } from '../../../lib/paging';

export const STATUS_COLOR: Record<string, string> = {
  pending: 'default',
  online: 'green',
  stale: 'orange',
  offline: 'default',
  banned: 'red',
};

export function statusLabel(t: (k: string) => string, s: string): string {
  return (HOST_STATUSES as readonly string[]).includes(s) ? t(`adminHosts.status.${s}`) : s;
}
