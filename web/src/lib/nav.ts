/** The path to go to after sign-in: `next` when it is a same-site path, else the hosts list. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/hosts';
}
