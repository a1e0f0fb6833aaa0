// The provisioning payload (spec section 2, docs/provisioning.md): the request
// body the dialog sends and the file it saves.
import type { ProvisioningPayload, ProvisioningRequest } from '../../api/types';

/** The password bounds the hub enforces (a generated one has 24 characters). */
export const AUTOLOGON_PASSWORD_MIN = 16;
export const AUTOLOGON_PASSWORD_MAX = 128;

export interface ProvisioningChoice {
  autologon: boolean;
  username?: string;
  password?: string;
}

/**
 * The body of POST …/provisioning-payload: none of autologon unless asked
 * for; an empty username is left to the hub's default (Administrator) and an
 * empty password asks the hub to generate one.
 */
export function provisioningBody(c: ProvisioningChoice): ProvisioningRequest {
  if (!c.autologon) return {};
  const username = c.username?.trim();
  return {
    autologon: {
      ...(username ? { username } : {}),
      ...(c.password ? { password: c.password } : {}),
    },
  };
}

/** The file's name, as the hub's Content-Disposition names it. */
export function provisioningFileName(hostId: string): string {
  return `provisioning-${hostId}.json`;
}

/** The file's text: compact JSON, as the hub sends it (user data must stay under 1 KB). */
export function provisioningFileText(p: ProvisioningPayload): string {
  return JSON.stringify(p) + '\n';
}
