import { setSessionEndedHandler } from '../api/client';
import { queryClient } from './queryClient';
import { router } from './router';

const PUBLIC = ['/signin', '/signup', '/session-ended'];

/**
 * When a session cannot be refreshed: forget every cached answer, then show
 * the session-ended page — or, for a visitor who never had a session on
 * this page, the sign-in page with a way back to where they were going.
 */
export function installSessionHandler(): void {
  setSessionEndedHandler((reason, hadSession) => {
    const { pathname, search } = router.state.location;
    if (PUBLIC.includes(pathname)) return;
    void queryClient.cancelQueries();
    queryClient.clear();
    if (!hadSession && reason === 'ended') {
      const next = pathname === '/' ? '' : `?next=${encodeURIComponent(pathname + search)}`;
      void router.navigate(`/signin${next}`, { replace: true });
      return;
    }
    void router.navigate(`/session-ended?reason=${reason}`, { replace: true });
  });
}
