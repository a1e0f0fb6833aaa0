/**
 * Charge is what one call cost, from the hub's X-Hostgate-Charged and
 * X-Hostgate-Balance headers (docs/billing.md).
 */
export interface Charge {
  /** Tokens the call took: 0 in free mode, at a price of zero, or on a 402. */
  tokens: number;
  /** The balance after the call (on a 402, the balance that fell short); absent when the hub read none (free mode, a price of zero). */
  balance?: number;
  /** The headers as sent, e.g. "0.5", for display. */
  chargedText: string;
  balanceText?: string;
}

/**
 * HostgateError is a non-2xx answer of the hub: the HTTP status and the
 * hub's `{error, message}` (`error` is `http_<status>` when the body was not
 * such an object).
 */
export class HostgateError extends Error {
  readonly status: number;
  readonly error: string;
  /**
   * What the failed call cost, when it reached the hub's charge step (a
   * charge is not refunded when the command then fails, e.g. 504
   * agent_timeout; a 402 took nothing and tells the balance).
   */
  readonly charge?: Charge;
  constructor(status: number, error: string, message: string, charge?: Charge) {
    super(message);
    this.name = 'HostgateError';
    this.status = status;
    this.error = error;
    if (charge) this.charge = charge;
  }
  override toString(): string {
    return `hostgate: ${this.status} ${this.error}: ${this.message}`;
  }
}

/** errorCode is err's hub error code, or "" when err is not a HostgateError. */
export function errorCode(err: unknown): string {
  return err instanceof HostgateError ? err.error : '';
}

/** isInsufficientBalance reports a 402: the balance does not cover the call. */
export function isInsufficientBalance(err: unknown): boolean {
  return errorCode(err) === 'insufficient_balance';
}

/** isHostOffline reports a 409 host_offline: the host's agent is not connected. */
export function isHostOffline(err: unknown): boolean {
  return errorCode(err) === 'host_offline';
}

/** isNotFound reports a 404: no such host, or not the key holder's. */
export function isNotFound(err: unknown): boolean {
  return errorCode(err) === 'not_found';
}

/** isAgentTimeout reports a 504: the agent did not answer in time. */
export function isAgentTimeout(err: unknown): boolean {
  return errorCode(err) === 'agent_timeout';
}
