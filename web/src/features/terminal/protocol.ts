// The browser terminal's WebSocket protocol (docs/terminal.md, "Browser
// terminal"), without any DOM or xterm: URLs, frames, control messages and
// what a socket's end means for the page.

/** What the page shows about the link. */
export type TermState = 'connecting' | 'open' | 'closed' | 'lost';

/** The hub accepts at most this many input bytes in one binary message. */
export const MAX_INPUT_BYTES = 64 * 1024;

/** Where the user console's host routes start; the admin console passes `/v1/admin/hosts`. */
export const USER_HOSTS_BASE = '/v1/user/hosts';

/** The ws(s) URL for a ticket; the ticket is the only credential on it. */
export function terminalUrl(
  loc: { protocol: string; host: string },
  hostId: string,
  ticket: string,
  cols: number,
  rows: number,
  hostsBase: string = USER_HOSTS_BASE,
): string {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws';
  const q = new URLSearchParams({ ticket, cols: String(clampSize(cols)), rows: String(clampSize(rows)) });
  return `${scheme}://${loc.host}${hostsBase}/${encodeURIComponent(hostId)}/terminal/ws?${q.toString()}`;
}

/** Window sizes the hub accepts: 1..65535. */
export function clampSize(n: number): number {
  if (!Number.isFinite(n)) return 1;
  return Math.min(65535, Math.max(1, Math.floor(n)));
}

/** The text message that tells the hub the window's new size. */
export function resizeMessage(cols: number, rows: number): string {
  return JSON.stringify({ type: 'resize', cols: clampSize(cols), rows: clampSize(rows) });
}

const encoder = new TextEncoder();

/**
 * Typed text (xterm's onData, a JS string) as UTF-8 binary frames of at most
 * MAX_INPUT_BYTES each, never splitting a character across two frames.
 */
export function encodeInput(data: string, max = MAX_INPUT_BYTES): Uint8Array[] {
  const bytes = encoder.encode(data);
  if (bytes.length <= max) return bytes.length ? [bytes] : [];
  const out: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + max, bytes.length);
    // Back off to a character boundary: continuation bytes are 10xxxxxx.
    if (end < bytes.length) {
      while (end > start && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
      if (end === start) end = Math.min(start + max, bytes.length);
    }
    out.push(bytes.subarray(start, end));
    start = end;
  }
  return out;
}

/** xterm's onBinary data (a string of byte values 0..255, e.g. mouse reports) as bytes. */
export function encodeBinary(data: string): Uint8Array {
  const b = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) b[i] = data.charCodeAt(i) & 0xff;
  return b;
}

/** A text (control) message from the hub. */
export type ServerControl =
  | { type: 'exit'; exitCode?: number; reason?: string }
  | { type: 'error'; error: string; message: string }
  | { type: 'unknown' };

export function parseControl(text: string): ServerControl {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { type: 'unknown' };
  }
  if (!v || typeof v !== 'object') return { type: 'unknown' };
  const o = v as Record<string, unknown>;
  if (o.type === 'exit') {
    return {
      type: 'exit',
      exitCode: typeof o.exit_code === 'number' ? o.exit_code : undefined,
      reason: typeof o.reason === 'string' && o.reason ? o.reason : undefined,
    };
  }
  if (o.type === 'error') {
    return {
      type: 'error',
      error: typeof o.error === 'string' ? o.error : 'error',
      message: typeof o.message === 'string' ? o.message : '',
    };
  }
  return { type: 'unknown' };
}

/** How a terminal ended, for the state line. */
export type Ending =
  /** The shell exited (with its status when known). */
  | { state: 'closed'; kind: 'exit'; exitCode?: number }
  /** The hub ended the terminal for a reason other than the shell exiting (the agent's link dropped…). */
  | { state: 'lost'; kind: 'ended'; reason: string }
  /** The hub reported a failure (terminal_busy, invalid_token…). */
  | { state: 'lost'; kind: 'error'; error: string; message: string }
  /** The socket could not be opened (the upgrade was refused or unreachable). */
  | { state: 'lost'; kind: 'refused'; code: number }
  /** The link dropped without the hub saying why. */
  | { state: 'lost'; kind: 'dropped'; code: number };

/**
 * What a socket's close means, given what came before it: an exit message
 * with an exit code (then close 1000) is a shell that ended; one with only a
 * reason is a terminal the hub lost (the agent's connection dropped); an
 * error message (then 1011) is
 * a failure the hub explained; any other close — 1006 from a dropped
 * network, 1001 from a hub going away, a close before the socket opened —
 * is a lost link.
 */
export function endingFor(
  code: number,
  opened: boolean,
  last: ServerControl | null,
): Ending {
  if (last?.type === 'exit') {
    if (last.exitCode === undefined && last.reason) return { state: 'lost', kind: 'ended', reason: last.reason };
    return { state: 'closed', kind: 'exit', exitCode: last.exitCode };
  }
  if (last?.type === 'error') return { state: 'lost', kind: 'error', error: last.error, message: last.message };
  if (!opened) return { state: 'lost', kind: 'refused', code };
  if (code === 1000) return { state: 'closed', kind: 'exit' };
  return { state: 'lost', kind: 'dropped', code };
}
