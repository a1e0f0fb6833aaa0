// The admin console's sections; the admins section only for roles that manage admins.
import {
  AuditOutlined,
  CloudServerOutlined,
  DashboardOutlined,
  DollarOutlined,
  RocketOutlined,
  TagsOutlined,
  TeamOutlined,
  UserOutlined,
} from '@ant-design/icons';
import type { ReactNode } from 'react';
import { can, type Perm } from '../perms';
import type { Role } from '../types';

export type Section = 'dashboard' | 'users' | 'hosts' | 'recharges' | 'pricing' | 'versions' | 'audit' | 'admins';

interface NavItem {
  section: Section;
  to: string;
  icon: ReactNode;
  /** Shown only to roles with this permission (reading is open to every role). */
  perm?: Perm;
}

export const NAV: NavItem[] = [
  { section: 'dashboard', to: '/admin', icon: <DashboardOutlined /> },
  { section: 'users', to: '/admin/users', icon: <UserOutlined /> },
  { section: 'hosts', to: '/admin/hosts', icon: <CloudServerOutlined /> },
  { section: 'recharges', to: '/admin/recharges', icon: <DollarOutlined /> },
  { section: 'pricing', to: '/admin/pricing', icon: <TagsOutlined /> },
  { section: 'versions', to: '/admin/versions', icon: <RocketOutlined /> },
  { section: 'audit', to: '/admin/audit', icon: <AuditOutlined /> },
  { section: 'admins', to: '/admin/admins', icon: <TeamOutlined />, perm: 'admins.manage' },
];

/** The nav sections a role sees. */
export function navFor(role: Role): NavItem[] {
  return NAV.filter((n) => !n.perm || can(role, n.perm));
}

