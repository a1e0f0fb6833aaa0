import { adminClient } from '../api';
import { adminQueryClient } from './queryClient';
import { adminRouter } from './router';
import { adminSessionEndTarget } from './sessionTarget';

/** On the admin session's end: forget every cached answer and leave for adminSessionEndTarget. */
export function installAdminSessionHandler(): void {
  adminClient.setSessionEndedHandler((reason, hadSession) => {
    const to = adminSessionEndTarget(reason, hadSession, adminRouter.state.location);
    if (!to) return;
    void adminQueryClient.cancelQueries();
    adminQueryClient.clear();
    void adminRouter.navigate(to, { replace: true });
  });
}
