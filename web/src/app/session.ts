import { setSessionEndedHandler } from '../api/client';
import { queryClient } from './queryClient';
import { router } from './router';
import { sessionEndTarget } from './sessionTarget';

export { sessionEndTarget };

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
