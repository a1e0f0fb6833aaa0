import { describe, expect, it } from 'vitest';
import type { JobTotals } from '../../api/types';
import {
  buildJobRequest,
  isFinalRun,
  jobIsLive,
  jobRevision,
  jobParamsFromSearch,
  jobParamsToSearch,
  jobProgress,
  newJobHref,
  nonZeroStates,
  operationSummary,
  parseRawOperation,
  resultParamsFromSearch,
  resultParamsToSearch,
  shellFormOf,
  shellOperation,
  shQuote,
  targetFromSearch,
  type JobFormValues,
} from './jobs';

const zero: JobTotals = { queued: 0, running: 0, succeeded: 0, failed: 0, skipped: 0, expired: 0, canceled: 0 };

describe('job progress', () => {
  it('counts final runs and rounds down until every run is final', () => {
    expect(jobProgress({ host_count: 3, totals: { ...zero, queued: 3 } })).toEqual({
      done: 0,
      percent: 0,
      successPercent: 0,
      failedPct: 0,
    });
    const p = jobProgress({ host_count: 3, totals: { ...zero, succeeded: 1, failed: 1, running: 1 } });
    expect(p).toEqual({ done: 2, percent: 66, successPercent: 33, failedPct: 50 });
    // 999 of 1000 is not shown as 100 %.
    expect(jobProgress({ host_count: 1000, totals: { ...zero, succeeded: 999, running: 1 } }).percent).toBe(99);
    expect(jobProgress({ host_count: 5, totals: { ...zero, succeeded: 3, skipped: 1, expired: 1 } })).toMatchObject({
      done: 5,
      percent: 100,
      successPercent: 60,
    });
  });

  it('survives odd totals: missing states, more runs than hosts, an empty job', () => {
    expect(jobProgress({ host_count: 2, totals: { succeeded: 1 } as JobTotals }).percent).toBe(50);
    expect(jobProgress({ host_count: 1, totals: { ...zero, succeeded: 2 } }).percent).toBe(100);
    expect(jobProgress({ host_count: 0, totals: zero }).percent).toBe(100);
    expect(jobProgress({ host_count: 3, totals: { ...zero, failed: 1, succeeded: 2 } }).failedPct).toBe(33.3);
  });

  it('keeps polling while runs can still change', () => {
    expect(jobIsLive({ state: 'running', totals: zero, finished_at: null })).toBe(true);
    expect(jobIsLive({ state: 'canceled', totals: { ...zero, running: 2 }, finished_at: null })).toBe(true);
    expect(jobIsLive({ state: 'canceled', totals: zero, finished_at: '2026-01-01T00:00:00Z' })).toBe(false);
    expect(jobIsLive({ state: 'finished', totals: zero, finished_at: '2026-01-01T00:00:00Z' })).toBe(false);
  });

  it('changes the revision with the counts, and tells final runs', () => {
    const a = jobRevision({ state: 'running', totals: { ...zero, queued: 2 } });
    expect(jobRevision({ state: 'running', totals: { ...zero, queued: 2 } })).toBe(a);
    expect(jobRevision({ state: 'running', totals: { ...zero, queued: 1, succeeded: 1 } })).not.toBe(a);
    expect(jobRevision({ state: 'finished', totals: { ...zero, queued: 2 } })).not.toBe(a);
    expect(isFinalRun('queued')).toBe(false);
    expect(isFinalRun('running')).toBe(false);
    expect(isFinalRun('expired')).toBe(true);
  });

  it('lists the states that have runs, in lifecycle order', () => {
    expect(nonZeroStates({ ...zero, failed: 2, queued: 1, succeeded: 4 })).toEqual([
      ['queued', 1],
      ['succeeded', 4],
      ['failed', 2],
    ]);
  });
});

describe('shell operation', () => {
  it('quotes the command as one word for the shell', () => {
    expect(shQuote("echo it's")).toBe(`'echo it'\\''s'`);
    expect(shellOperation({ program: '', command: 'uptime', timeout_s: 30 })).toEqual({
      controls: 8192,
      path: '/bin/sh',
      data: { args: "-c 'uptime'", timeout_s: 30 },
    });
    expect(shellOperation({ program: '/bin/bash', command: 'echo $HOME' })).toEqual({
      controls: 8192,
      path: '/bin/bash',
      data: { args: "-c 'echo $HOME'" },
    });
  });

  it('reads the command back from the operation', () => {
    const f = { program: '/bin/sh', command: `printf '%s\\n' "a b" it's`, timeout_s: 10 };
    expect(shellFormOf(shellOperation(f))).toEqual(f);
    expect(shellFormOf({ controls: 8192, path: '/bin/sh', data: { args: '-c uptime' } })).toBeNull();
    expect(shellFormOf({ controls: 16, path: '/etc/hosts' })).toBeNull();
    expect(operationSummary(shellOperation({ program: '/bin/sh', command: 'uptime' }))).toBe('uptime');
    expect(operationSummary({ controls: 16, path: '/etc/hosts' })).toBe('16 /etc/hosts');
  });
});

describe('raw operation', () => {
  it('takes {controls, path, data} and refuses anything else', () => {
    expect(parseRawOperation('{"controls":16,"path":"/etc/hosts","data":{"n":1}}')).toEqual({
      ok: true,
      op: { controls: 16, path: '/etc/hosts', data: { n: 1 } },
    });
    expect(parseRawOperation('{"controls":16,"path":""}')).toEqual({ ok: true, op: { controls: 16, path: '' } });
    expect(parseRawOperation('{')).toEqual({ ok: false, error: 'json' });
    expect(parseRawOperation('[1]')).toEqual({ ok: false, error: 'shape' });
    expect(parseRawOperation('{"controls":"16","path":"/"}')).toEqual({ ok: false, error: 'shape' });
    expect(parseRawOperation('{"controls":1.5,"path":"/"}')).toEqual({ ok: false, error: 'shape' });
    expect(parseRawOperation('{"controls":16}')).toEqual({ ok: false, error: 'shape' });
  });
});

describe('new job request', () => {
  const base: JobFormValues = {
    targetKind: 'tags',
    hostIds: ['h1'],
    tags: ['env=prod', 'bad key', 'role'],
    filterId: 'f1',
    opKind: 'shell',
    shell: { program: '/bin/sh', command: 'uptime', timeout_s: 30 },
    raw: '',
    offline: 'queue',
    expires_in_s: 600,
    concurrency: 10,
    wavesOn: false,
  };

  it('sends only the chosen target and the options set', () => {
    expect(buildJobRequest(base, true)).toEqual({
      target: { tags: ['env=prod', 'role'] },
      operation: { controls: 8192, path: '/bin/sh', data: { args: "-c 'uptime'", timeout_s: 30 } },
      offline: 'queue',
      expires_in_s: 600,
      concurrency: 10,
      dry_run: true,
    });
    const r = buildJobRequest(
      { ...base, targetKind: 'hosts', name: ' nightly ', notify_url: 'https://x', wavesOn: true, waveSize: 5, wavePause: 0, waveStopPct: 20 },
      false,
    );
    expect(r).toMatchObject({
      name: 'nightly',
      target: { host_ids: ['h1'] },
      notify_url: 'https://x',
      waves: { size: 5, pause_s: 0, stop_if_failed_pct: 20 },
      dry_run: false,
    });
    expect(buildJobRequest({ ...base, targetKind: 'filter', wavesOn: true, waveSize: 5, waveStopPct: null }, false)).toMatchObject({
      target: { filter_id: 'f1' },
      waves: { size: 5, pause_s: 0 },
    });
  });

  it('takes the raw operation as written, and refuses a broken one', () => {
    expect(buildJobRequest({ ...base, opKind: 'raw', raw: '{"controls":16,"path":"/etc/hosts"}' }, false).operation).toEqual({
      controls: 16,
      path: '/etc/hosts',
    });
    expect(() => buildJobRequest({ ...base, opKind: 'raw', raw: 'nope' }, false)).toThrow('raw_json');
  });
});

describe('URLs', () => {
  it('carries the new job target from the hosts list', () => {
    const href = newJobHref({ hostIds: ['a', 'b'] });
    expect(href).toBe('/jobs/new?host=a&host=b');
    expect(targetFromSearch(new URLSearchParams(href.split('?')[1]))).toEqual({
      targetKind: 'hosts',
      hostIds: ['a', 'b'],
      tags: [],
      filterId: undefined,
    });
    expect(targetFromSearch(new URLSearchParams(newJobHref({ tags: ['env=prod'] }).split('?')[1])).targetKind).toBe('tags');
    expect(targetFromSearch(new URLSearchParams('filter=f9'))).toMatchObject({ targetKind: 'filter', filterId: 'f9' });
    expect(newJobHref({})).toBe('/jobs/new');
  });

  it('keeps the jobs list state in the URL', () => {
    const p = jobParamsFromSearch(new URLSearchParams('state=running&page=2&size=50'));
    expect(p).toEqual({ state: 'running', limit: 50, offset: 50 });
    expect(jobParamsToSearch(p).toString()).toBe('state=running&page=2&size=50');
    expect(jobParamsFromSearch(new URLSearchParams('state=odd')).state).toBeUndefined();
  });

  it('keeps the results table state beside other params', () => {
    const sp = resultParamsToSearch(new URLSearchParams('x=1'), { state: 'failed', limit: 20, offset: 20 });
    expect(sp.toString()).toBe('x=1&rstate=failed&rpage=2');
    expect(resultParamsFromSearch(sp)).toEqual({ state: 'failed', limit: 20, offset: 20 });
    expect(resultParamsToSearch(sp, { limit: 20, offset: 0 }).toString()).toBe('x=1');
  });
});
