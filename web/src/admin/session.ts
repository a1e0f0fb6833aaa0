// The signed-in admin, for every page under the admin layout: useAdmin()
// gives the admin (from GET /v1/admin/me, polled every 5 s by the layout)
// and can(perm) for its role.
import { createContext, useContext } from 'react';
import { can as roleCan, type Perm } from './perms';
import type { AdminInfo } from './types';

export interface AdminSession {
  admin: AdminInfo;
  can: (p: Perm) => boolean;
}

export const AdminContext = createContext<AdminSession | null>(null);

/** Builds the session value the layout provides. */
export function adminSession(admin: AdminInfo): AdminSession {
  return { admin, can: (p) => roleCan(admin.role, p) };
}

/** The signed-in admin; only inside the admin layout (which renders nothing until /v1/admin/me answered). */
export function useAdmin(): AdminSession {
  const s = useContext(AdminContext);
  if (!s) throw new Error('useAdmin outside the admin layout');
  return s;
}
