// The admin host answers the fleet pages read (docs/openapi.json; the fields
// issue 25 adds — owner, flaps_1h, host_count — are optional until every hub
// has them).
import type { Host, Metrics, Upgrade } from '../../../api/types';

export type { Metrics, Upgrade };

export interface AdminHostItem extends Host {
  user_email: string;
  ws_connected: boolean;
  online: boolean;
}

export interface AdminHostsPage {
  items?: AdminHostItem[] | null;
  total: number;
  limit: number;
  offset: number;
  q?: string;
}

export interface Flaps {
  connects: number;
  disconnects: number;
}

export interface AdminHostDetail {
  host: Host;
  ws_connected: boolean;
  online: boolean;
  upgrade?: Upgrade;
  owner?: { id: string; email: string };
  flaps_1h?: Flaps;
}

export interface HostEvent {
  id: string;
  at: string;
  kind: string;
  message: string;
}

export interface GatewayVersion {
  id: string;
  version: string;
  channel: 'stable' | 'beta' | 'canary';
  exe_url: string;
  exe_sha256: string;
  exe_size_bytes: number;
  min_supported_protocol: number;
  released_at: string;
  changelog?: string;
  yanked_at?: string | null;
  host_count?: number;
}

export interface PushUpgradeResult {
  ok: boolean;
  version: string;
}
