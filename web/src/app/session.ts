import { setSessionEndedHandler, type SessionEndReason } from '../api/client';
import { queryClient } from './queryClient';
import { router } from './router';

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

/** On a session's end: forget every cached answer and leave for sessionEndTarget. */
export function installSessionHandler(): void {
  setSessionEndedHandler((reason, hadSession) => {
    const to = sessionEndTarget(reason, hadSession, router.state.location);
    if (!to) return;
    void queryClient.cancelQueries();
    queryClient.clear();
    void router.navigate(to, { replace: true });
  });
}
