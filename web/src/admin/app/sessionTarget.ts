// Where the admin console goes when its session ends: pure, so tests and the
// app share it (session.ts wires it to the router).
import type { SessionEndReason } from '../../api/client';

const PUBLIC = ['/admin/signin', '/admin/session-ended'];

/**
 * Nowhere from a public page; the sign-in page (with a way back) for a
 * visitor who never had a session on this page; else the session-ended page.
 */
export function adminSessionEndTarget(
  _reason: SessionEndReason,
  hadSession: boolean,
  at: { pathname: string; search: string },
): string | null {
  if (PUBLIC.includes(at.pathname)) return null;
  if (!hadSession) {
    const back = at.pathname === '/admin' || at.pathname === '/admin/' ? '' : at.pathname + at.search;
    return back ? `/admin/signin?next=${encodeURIComponent(back)}` : '/admin/signin';
  }
  return '/admin/session-ended';
}

/** A `next` target that stays inside the admin console (no open redirect). */
export function safeAdminNext(next: string | null): string {
  if (!next || !next.startsWith('/admin') || next.startsWith('//') || next.includes('\\')) return '/admin';
  if (next.startsWith('/admin/signin') || next.startsWith('/admin/session-ended')) return '/admin';
  return next;
}
