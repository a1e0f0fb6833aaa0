// STAND-IN (FE-FLEET) for FE-SHELL's permission table (docs/admin-roles.md);
// FE-SHELL's version replaces it at merge.
export type Role = 'owner' | 'operator' | 'finance' | 'viewer';

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

const TABLE: Record<Perm, readonly Role[]> = {
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

export function can(role: Role, p: Perm): boolean {
  return TABLE[p].includes(role);
}
