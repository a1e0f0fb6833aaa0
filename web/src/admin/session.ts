// STAND-IN (FE-FLEET) for FE-SHELL's admin session hook; FE-SHELL's version
// replaces it at merge.
import { createContext, useContext } from 'react';
import { can as roleCan, type Perm, type Role } from './perms';

export interface AdminInfo {
  id: string;
  username: string;
  role: Role;
  status: 'active' | 'disabled';
  created_at: string;
  last_login_at?: string;
}

export const AdminContext = createContext<AdminInfo | null>(null);

export function useAdmin(): { admin: AdminInfo; can: (p: Perm) => boolean } {
  const admin = useContext(AdminContext);
  if (!admin) throw new Error('useAdmin outside the admin session');
  return { admin, can: (p: Perm) => roleCan(admin.role, p) };
}
