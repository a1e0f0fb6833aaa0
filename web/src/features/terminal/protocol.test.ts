import { describe, expect, it } from 'vitest';
import {
  clampSize,
  encodeBinary,
  encodeInput,
  endingFor,
  parseControl,
  resizeMessage,
  terminalUrl,
} from './protocol';

describe('terminalUrl', () => {
  it('uses ws on http and wss on https, with ticket and size', () => {
    expect(terminalUrl({ protocol: 'http:', host: 'h:1' }, 'abc', 't/+=', 80, 24)).toBe(
      'ws://h:1/v1/user/hosts/abc/terminal/ws?ticket=t%2F%2B%3D&cols=80&rows=24',
    );
    expect(terminalUrl({ protocol: 'https:', host: 'x.io' }, 'a b', 'T', 0, 70000)).toBe(
      'wss://x.io/v1/user/hosts/a%20b/terminal/ws?ticket=T&cols=1&rows=65535',
    );
  });

  it('takes another route base (the admin console)', () => {
    expect(terminalUrl({ protocol: 'http:', host: 'h' }, 'id1', 'T', 80, 24, '/v1/admin/hosts')).toBe(
      'ws://h/v1/admin/hosts/id1/terminal/ws?ticket=T&cols=80&rows=24',
    );
  });
});

describe('resize', () => {
  it('is the hub resize control message', () => {
    expect(JSON.parse(resizeMessage(132, 43))).toEqual({ type: 'resize', cols: 132, rows: 43 });
  });
  it('clamps sizes to 1..65535', () => {
    expect(clampSize(0)).toBe(1);
    expect(clampSize(12.7)).toBe(12);
    expect(clampSize(NaN)).toBe(1);
    expect(clampSize(1e6)).toBe(65535);
  });
});

describe('encodeInput', () => {
  it('encodes UTF-8', () => {
    const [b] = encodeInput('é中\r');
    expect(Array.from(b ?? [])).toEqual([0xc3, 0xa9, 0xe4, 0xb8, 0xad, 0x0d]);
  });
  it('sends nothing for nothing', () => {
    expect(encodeInput('')).toEqual([]);
  });
  it('splits long input on character boundaries', () => {
    const s = '中'.repeat(10); // 30 bytes
    const parts = encodeInput(s, 8);
    expect(parts.every((p) => p.length <= 8)).toBe(true);
    const dec = new TextDecoder('utf-8', { fatal: true });
    expect(parts.map((p) => dec.decode(p)).join('')).toBe(s);
    expect(parts.reduce((n, p) => n + p.length, 0)).toBe(30);
  });
  it('encodes onBinary strings byte by byte', () => {
    expect(Array.from(encodeBinary('\x1b[M\xff'))).toEqual([0x1b, 0x5b, 0x4d, 0xff]);
  });
});

describe('parseControl', () => {
  it('reads exit and error messages', () => {
    expect(parseControl('{"type":"exit","exit_code":3}')).toEqual({ type: 'exit', exitCode: 3, reason: undefined });
    expect(parseControl('{"type":"exit","reason":"agent disconnected"}')).toEqual({
      type: 'exit',
      exitCode: undefined,
      reason: 'agent disconnected',
    });
    expect(parseControl('{"type":"error","error":"terminal_busy","message":"busy"}')).toEqual({
      type: 'error',
      error: 'terminal_busy',
      message: 'busy',
    });
  });
  it('ignores anything else', () => {
    expect(parseControl('nope')).toEqual({ type: 'unknown' });
    expect(parseControl('{"type":"other"}')).toEqual({ type: 'unknown' });
    expect(parseControl('null')).toEqual({ type: 'unknown' });
  });
});

describe('endingFor', () => {
  it('an exit message then 1000 is a closed shell with its status', () => {
    expect(endingFor(1000, true, { type: 'exit', exitCode: 3 })).toEqual({ state: 'closed', kind: 'exit', exitCode: 3 });
    expect(endingFor(1000, true, { type: 'exit', exitCode: -1, reason: 'x' })).toMatchObject({ exitCode: -1 });
  });
  it('an exit with only a reason is a lost terminal', () => {
    expect(endingFor(1000, true, { type: 'exit', reason: 'the connection to the agent was lost' })).toEqual({
      state: 'lost',
      kind: 'ended',
      reason: 'the connection to the agent was lost',
    });
    expect(endingFor(1000, true, { type: 'exit' })).toEqual({ state: 'closed', kind: 'exit', exitCode: undefined });
  });
  it('an error message then 1011 is lost with the hub words', () => {
    expect(endingFor(1011, true, { type: 'error', error: 'invalid_token', message: 'signed out' })).toMatchObject({
      state: 'lost',
      kind: 'error',
      message: 'signed out',
    });
  });
  it('a drop without a word is lost', () => {
    expect(endingFor(1006, true, null)).toEqual({ state: 'lost', kind: 'dropped', code: 1006 });
    expect(endingFor(1001, true, { type: 'unknown' })).toMatchObject({ state: 'lost', kind: 'dropped' });
  });
  it('a close before open is a refused connection', () => {
    expect(endingFor(1006, false, null)).toEqual({ state: 'lost', kind: 'refused', code: 1006 });
  });
  it('a plain 1000 after open is a closed terminal', () => {
    expect(endingFor(1000, true, null)).toEqual({ state: 'closed', kind: 'exit' });
  });
});
