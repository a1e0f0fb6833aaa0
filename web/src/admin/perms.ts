// What each admin role may change, mirroring docs/admin-roles.md (a test
// compares the two). Reading is open to every role; the console renders a
// write control only when can(role, perm) — the hub refuses the rest anyway.
import type { Role } from './types';

export type { Role };

export type Perm =
  | 'users.write'
  | 'balance.adjust'
  | 'hosts.write'
  | 'terminal'
  | 'versions.write'
  | 'recharges.refund'
  | 'pricing.write'
  | 'billing.mode'
  | 'admins.manage';

/** The roles allowed each permission (owner may do everything). */
export const PERMS: Record<Perm, readonly Role[]> = {
  'users.write': ['owner', 'operator'],
  'balance.adjust': ['owner', 'finance'],
  'hosts.write': ['owner', 'operator'],
  terminal: ['owner', 'operator'],
  'versions.write': ['owner', 'operator'],
  'recharges.refund': ['owner', 'finance'],
  'pricing.write': ['owner', 'finance'],
  'billing.mode': ['owner', 'finance'],
  'admins.manage': ['owner'],
};

/** The write routes behind each permission (docs/admin-roles.md's table; the test reads their roles). */
export const PERM_ROUTES: Record<Perm, readonly string[]> = {
  'users.write': ['POST /v1/admin/users/{id}/suspend', 'POST /v1/admin/users/{id}/resume'],
  'balance.adjust': ['POST /v1/admin/users/{id}/balance/adjust'],
  'hosts.write': [
    'POST /v1/admin/hosts/{id}/push-upgrade',
    'DELETE /v1/admin/hosts/{id}',
    'POST /v1/admin/hosts/{id}/ban',
    'POST /v1/admin/hosts/{id}/unban',
  ],
  terminal: ['POST /v1/admin/hosts/{id}/terminal/ticket'],
  'versions.write': ['POST /v1/admin/gateway-versions', 'POST /v1/admin/gateway-versions/{ver}/yank'],
  'recharges.refund': ['POST /v1/admin/recharges/{id}/refund'],
  'pricing.write': ['POST /v1/admin/pricing-rules', 'PUT /v1/admin/pricing-rules/{id}'],
  'billing.mode': ['POST /v1/admin/billing/mode'],
  'admins.manage': [
    'GET /v1/admin/admins',
    'POST /v1/admin/admins',
    'POST /v1/admin/admins/{id}/role',
    'POST /v1/admin/admins/{id}/disable',
    'POST /v1/admin/admins/{id}/enable',
  ],
};

/** Whether role may use perm. An unknown role may do nothing. */
export function can(role: Role | (string & {}) | undefined, p: Perm): boolean {
  return (PERMS[p] as readonly string[]).includes(role ?? '');
}
