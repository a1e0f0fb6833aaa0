// The signed-in admin, for every page under the admin layout: useAdmin()
// gives the admin (from GET /v1/admin/me, polled every 5 s by the layout)
// and can(perm) for its role.
import { createContext, useContext } from 'react';
import { can as roleCan, type Perm } from './perms';
import type { AdminInfo } from './types';

export type { AdminInfo };

/** The signed-in admin; the layout provides it once /v1/admin/me answered. */
export const AdminContext = createContext<AdminInfo | null>(null);

/** The signed-in admin and what its role may do; only inside the admin layout. */
export function useAdmin(): { admin: AdminInfo; can: (p: Perm) => boolean } {
  const admin = useContext(AdminContext);
  if (!admin) throw new Error('useAdmin outside the admin layout');
  return { admin, can: (p: Perm) => roleCan(admin.role, p) };
}
