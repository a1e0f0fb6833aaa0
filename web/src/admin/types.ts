// Types of the admin answers. Existing routes alias the generated schema
// (src/api/schema.d.ts); the answers issue 25 adds are written by hand from
// /work/contract-25.md until the schema is regenerated after the merge.
import type { components } from '../api/schema';
import type { Page } from '../api/types';

type S = components['schemas'];

export type { Page };

export type Role = 'owner' | 'operator' | 'finance' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'operator', 'finance', 'viewer'];

/** An administrator (GET /v1/admin/me, the admins list). */
export interface AdminInfo {
  id: string;
  username: string;
  role: Role;
  status: 'active' | 'disabled';
  created_at: string;
  last_login_at?: string | null;
}
export type AdminPage = Page<AdminInfo>;

/** POST /v1/admin/auth/login and /refresh (tokens in the body are ignored: cookies carry them). */
export interface AdminAuthResp {
  access_ttl_s?: number;
  user?: AdminInfo;
  admin: AdminInfo;
}
export type StepUp = S['StepUpOutBody'];

export type DashboardSummary = S['DashboardSummary'] & {
  webhooks_pending?: number;
  webhooks_dead?: number;
  users_total?: number;
  users_suspended?: number;
};

export type SeriesBucket = 'hour' | 'day';
export interface SeriesPoint {
  t: string;
  calls: number;
  tokens_charged: number;
  revenue_cny: number;
  online_hosts: number;
  webhooks_pending: number;
  webhooks_dead: number;
}
export interface DashboardSeries {
  bucket: SeriesBucket;
  items: SeriesPoint[] | null;
}
export interface AgentVersionCount {
  version: string;
  hosts: number;
  online: number;
}
export interface AgentVersions {
  items: AgentVersionCount[] | null;
}

export type LedgerCheck = S['LedgerOutBody'];
export type Recharge = S['Recharge'];
export type RechargeStatus = Recharge['status'];
export type RechargePage = Page<Recharge>;
export type Refunded = S['RefundOutBody'];

export type PricingRule = S['PricingRule'];
export type PricingRules = S['RulesOutBody'];
export type CreateRule = S['CreateRuleInBody'];
export type UpdateRule = S['UpdateRuleInBody'];
export type BillingMode = S['ModeOutBody'];
export type BillingModeName = BillingMode['mode'];

export type Version = S['Version'] & { host_count?: number };
export type VersionChannel = S['Version']['channel'];
export type VersionPage = Page<Version>;
export type PublishVersion = S['Publish'];

export type AuditEntry = S['Entry'];
export type AuditPage = Page<AuditEntry>;

export type User = S['User'];
export type UserPage = Page<User>;
/** GET /v1/admin/users/{id}: the user plus the figures of its page. */
export type AdminUserDetail = User & { balance?: number; host_count?: number; api_key_count?: number };
export type BillingEvent = S['BillingEvent'];
export interface AdminApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at?: string | null;
  revoked_at?: string | null;
}

export type Host = S['Host'];
/** An item of GET /v1/admin/hosts: the host plus its owner's email and live state. */
export type AdminHostItem = Host & { user_email?: string; ws_connected?: boolean; online?: boolean };
export type AdminHostPage = Page<AdminHostItem> & { q?: string };
export type AdminHostDetail = S['AdminHostOutBody'] & {
  owner?: { id: string; email: string };
  flaps_1h?: { connects: number; disconnects: number };
};
export type HostEvents = S['EventsOutBody'];
export type Metrics = S['Metrics'];
export type MetricsPage = S['MetricsOutBody'];
export type TicketOut = S['TicketOutBody'];
