// The users list's filters and sorts, as GET /v1/admin/users takes them.
import type { ListSpec } from '../hosts/listQuery';

export const USER_STATUSES = ['active', 'suspended'] as const;

export const USERS_SPEC: ListSpec = {
  sorts: ['email', 'created_at', 'display_name'],
  defaultSort: '-created_at',
  filters: { status: USER_STATUSES },
};
