import type { Credentials } from '../../api/types';

/** The credentials JSON as the API returned it, pretty-printed: the agent's --config file. */
export function credentialsJson(c: Credentials): string {
  return JSON.stringify(c, null, 2);
}
