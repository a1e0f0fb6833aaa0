// Where the page goes when a session ends: pure, so the client's tests and
// the app share it (session.ts wires it to the router).
import type { SessionEndReason } from '../api/client';

const PUBLIC = ['/signin', '/signup', '/session-ended'];

/**
 * Where to go when a session cannot be refreshed: nowhere from a public
 * page; the sign-in page (with a way back) for a visitor who never had a
 * session on this page; else the session-ended page with its reason.
 */
export function sessionEndTarget(
  reason: SessionEndReason,
  hadSession: boolean,
  at: { pathname: string; search: string },
): string | null {
  if (PUBLIC.includes(at.pathname)) return null;
  if (!hadSession && reason === 'ended') {
    const next = at.pathname === '/' ? '' : `?next=${encodeURIComponent(at.pathname + at.search)}`;
    return `/signin${next}`;
  }
  return `/session-ended?reason=${reason}`;
}
