// How unsteady a host's link is: the hub counts its connects and disconnects
// over the last hour (`flaps_1h`); a host that drops and comes back again and
// again is flapping, and its page highlights it.
import type { Flaps } from './types';

/** Reconnections per hour from which a host counts as flapping. */
export const FLAP_HIGH = 5;
/** Reconnections per hour from which the page draws attention to the count. */
export const FLAP_SOME = 2;

export type FlapLevel = 'none' | 'calm' | 'some' | 'high';

/**
 * The level for an hour's counts: 'none' with no change, 'calm' for a
 * reconnection or so, 'some' from FLAP_SOME, 'high' from FLAP_HIGH. A
 * reconnection is a disconnect followed by a connect, so the larger of the
 * two counts is the number of reconnections.
 */
export function flapLevel(f: Flaps | null | undefined): FlapLevel {
  if (!f) return 'none';
  const n = Math.max(f.connects || 0, f.disconnects || 0);
  if (n <= 0) return 'none';
  if (n >= FLAP_HIGH) return 'high';
  if (n >= FLAP_SOME) return 'some';
  return 'calm';
}
