// The hosts list's filters and sorts, as GET /v1/admin/hosts takes them.
import { HOST_STATUSES } from '../../../lib/paging';
import type { ListSpec } from './listQuery';

export const HOST_SORT_COLUMNS = ['name', 'created_at', 'last_seen_at', 'status', 'agent_version', 'user_email'] as const;

/** OS families the agent reports (Go's GOOS); the filter offers these. */
export const OS_FAMILIES = ['windows', 'linux', 'darwin'] as const;

export const HOSTS_SPEC: ListSpec = {
  sorts: HOST_SORT_COLUMNS,
  defaultSort: '-created_at',
  filters: {
    status: HOST_STATUSES,
    online: ['true', 'false'],
    os: 'text',
    agent_version: 'text',
  },
};
