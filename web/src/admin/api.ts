// The admin console's API client: the same implementation as the user
// console's `api` (src/api/client.ts), scoped to the admin session. Cookies
// gw_admin_at / gw_admin_rt carry it; a 401 from /v1/admin/* refreshes once at
// /v1/admin/auth/refresh (one shared refresh) and retries once; a refused
// refresh ends the session (src/admin/app/session.ts → /admin/session-ended).
import { createClient, type Client } from '../api/client';

export { seg, errorMessage, ApiError } from '../api/client';

/** The admin scope's client with its session controls (the shell wires them). */
export const adminClient = createClient({
  prefix: '/v1/admin/',
  refreshPath: '/v1/admin/auth/refresh',
  publicPaths: ['/v1/admin/auth/login', '/v1/admin/auth/refresh'],
  // A wrong password at the step-up prompt is 401 invalid_credentials: an
  // answer to show, not an ended session.
  answerCodes: ['invalid_credentials'],
});

/** get / post / put / delete, as `api` in src/api/client.ts; post takes extra headers (X-Step-Up-Token). */
export const adminApi: Client = {
  get: adminClient.get,
  post: adminClient.post,
  put: adminClient.put,
  delete: adminClient.delete,
};
