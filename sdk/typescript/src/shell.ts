// Interactive shell sessions in pull mode (docs/terminal.md).
import type { Transport } from './transport.js';
import type { CallOptions } from './types.js';

/** ShellOutput is what ShellSession.read returns. */
export interface ShellOutput {
  /** The output since the last read. */
  data: Uint8Array;
  /** The output is over (the shell exited, or the session ended). */
  eof: boolean;
  /** The shell's exit status, when eof and known (-1: killed). */
  exitCode?: number;
  /** Why the session ended, when not by the shell's exit. */
  reason?: string;
}

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * ShellSession is an interactive shell on a host, driven by pull-mode calls;
 * each call is charged (none is retried except when the connection was
 * refused). Browsers use the terminal WebSocket instead.
 */
export class ShellSession {
  /** The session's stream_id. */
  readonly id: string;
  private readonly t: Transport;
  private readonly hostId: string;

  constructor(t: Transport, hostId: string, id: string) {
    this.t = t;
    this.hostId = hostId;
    this.id = id;
  }

  private path(op: string): string {
    return `/v1/api/hosts/${encodeURIComponent(this.hostId)}/shell/session/${encodeURIComponent(this.id)}/${op}`;
  }

  /** write types input into the terminal ("ls\n"). */
  async write(input: string, opts: CallOptions = {}): Promise<void> {
    await this.t.call({ method: 'POST', path: this.path('write'), body: { input }, signal: opts.signal });
  }

  /**
   * read returns up to max bytes of output (0 for the hub's default), waiting
   * up to waitMs (at most 25000) when none is ready.
   */
  async read(max: number, waitMs: number, opts: CallOptions = {}): Promise<ShellOutput> {
    const out = await this.t.call<{ data: string; eof: boolean; exit_code?: number | null; reason?: string }>({
      method: 'POST',
      path: this.path('read'),
      body: { max, wait_ms: waitMs },
      signal: opts.signal,
      minTimeoutMs: waitMs + 15000,
    });
    const r: ShellOutput = { data: fromBase64(out.data ?? ''), eof: out.eof };
    if (out.exit_code !== undefined && out.exit_code !== null) r.exitCode = out.exit_code;
    if (out.reason) r.reason = out.reason;
    return r;
  }

  /** resize sets the terminal size. */
  async resize(cols: number, rows: number, opts: CallOptions = {}): Promise<void> {
    await this.t.call({ method: 'POST', path: this.path('resize'), body: { cols, rows }, signal: opts.signal });
  }

  /** close ends the shell and every process it started. */
  async close(opts: CallOptions = {}): Promise<void> {
    await this.t.call({ method: 'POST', path: this.path('close'), signal: opts.signal });
  }

  /**
   * pump reads until eof, calling onData with each chunk, and resolves with
   * the last read (its exitCode and reason). Aborting opts.signal stops it.
   */
  async pump(onData: (chunk: Uint8Array) => void, waitMs = 20000, opts: CallOptions = {}): Promise<ShellOutput> {
    for (;;) {
      const out = await this.read(0, waitMs, opts);
      if (out.data.length) onData(out.data);
      if (out.eof) return out;
    }
  }
}
