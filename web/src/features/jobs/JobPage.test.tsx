// The job page against a stubbed hub: live counts while the job runs, the
// polling stopping once it is final, results rows and the actions shown
// for each state.
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Job } from '../../api/types';
import { json, mockFetch, mountRoutes, type FetchCall } from '../../test/helpers';
import JobPage from './JobPage';

const ID = '0b7d1c4e-3f53-4bb3-9d0e-0c6a3e0f1a11';
const zero = { queued: 0, running: 0, succeeded: 0, failed: 0, skipped: 0, expired: 0, canceled: 0 };
const base: Job = {
  id: ID,
  name: 'uptime everywhere',
  state: 'running',
  host_count: 4,
  totals: { ...zero, queued: 2, running: 1, succeeded: 1 },
  target: { tags: ['env=prod'] },
  operation: { controls: 8192, path: '/bin/sh', data: { args: "-c 'uptime'" } },
  offline: 'skip',
  concurrency: 50,
  expires_at: '2026-11-27T12:00:00Z',
  waves: null as unknown as Job['waves'],
  wave: 1,
  stop_reason: '',
  notify_url: '',
  retry_of: null,
  schedule_id: null,
  charged: 5,
  created_at: '2026-11-27T11:00:00Z',
  finished_at: null,
};
const result = (host: string, state: string, extra: object = {}) => ({
  host_id: host,
  host_name: host,
  state,
  wave: 1,
  exit_code: state === 'failed' ? 3 : 0,
  stdout: 'up 3 days',
  stderr: '',
  output_truncated: false,
  error: state === 'failed' ? 'nonzero_exit' : '',
  message: '',
  charged: 5,
  started_at: '2026-11-27T11:00:01Z',
  finished_at: '2026-11-27T11:00:02Z',
  ...extra,
});

afterEach(() => {
  document.body.innerHTML = '';
  vi.unstubAllGlobals();
});

const q = (sel: string) => document.querySelector(sel);
async function until(check: () => boolean) {
  for (let i = 0; i < 400 && !check(); i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
  }
}

describe('JobPage', () => {
  it('follows a running job every second and stops once it is finished', { timeout: 30_000 }, async () => {
    const calls: FetchCall[] = [];
    let reads = 0;
    mockFetch(calls, (url) => {
      if (url.startsWith(`/v1/user/jobs/${ID}/results`))
        return json(200, { items: [result('web-1', 'succeeded'), result('web-2', 'failed')], total: 2, limit: 20, offset: 0 });
      if (url === `/v1/user/jobs/${ID}`) {
        reads++;
        return reads < 3
          ? json(200, base)
          : json(200, { ...base, state: 'finished', totals: { ...zero, succeeded: 3, failed: 1 }, finished_at: '2026-11-27T11:00:05Z' });
      }
      if (url.startsWith('/v1/user/billing')) return json(200, {});
      return json(404, { error: 'not_found', message: 'no' });
    });
    mountRoutes([{ path: '/jobs/:id', element: <JobPage /> }], `/jobs/${ID}`);
    await until(() => q('[data-testid="job-progress"]') !== null);
    expect(q('[data-testid="job-state"]')?.getAttribute('data-state')).toBe('running');
    expect(q('[data-testid="job-progress"]')?.getAttribute('data-percent')).toBe('25');
    expect(q('[data-testid="job-count"][data-state="queued"]')?.getAttribute('data-count')).toBe('2');
    expect(q('[data-testid="job-cancel"]')).not.toBeNull();
    expect(q('[data-testid="job-retry-failed"]')).toBeNull();

    await until(() => q('[data-testid="job-state"]')?.getAttribute('data-state') === 'finished');
    expect(q('[data-testid="job-progress"]')?.getAttribute('data-percent')).toBe('100');
    expect(q('[data-testid="job-count"][data-state="failed"]')?.getAttribute('data-count')).toBe('1');
    expect(q('[data-testid="job-cancel"]')).toBeNull();
    expect(q('[data-testid="job-retry-failed"]')).not.toBeNull();
    await until(() => document.querySelectorAll('[data-testid="job-result-row"]').length === 2);
    expect(q('[data-testid="job-result-row"][data-state="failed"]')?.textContent).toContain('nonzero_exit');

    // No more reads of the job once it is final.
    const after = reads;
    await act(async () => {
      await new Promise((r) => setTimeout(r, 2500));
    });
    expect(reads).toBe(after);
  });

  it('reads the results again when a finished job still shows runs that were not written yet', { timeout: 30_000 }, async () => {
    const calls: FetchCall[] = [];
    let resultReads = 0;
    mockFetch(calls, (url) => {
      if (url.startsWith(`/v1/user/jobs/${ID}/results`)) {
        resultReads++;
        const st = resultReads === 1 ? 'queued' : 'succeeded';
        return json(200, { items: [result('web-1', st), result('web-2', st)], total: 2, limit: 20, offset: 0 });
      }
      if (url === `/v1/user/jobs/${ID}`)
        return json(200, { ...base, host_count: 2, state: 'finished', totals: { ...zero, succeeded: 2 }, finished_at: '2026-11-27T11:00:05Z' });
      return json(200, {});
    });
    mountRoutes([{ path: '/jobs/:id', element: <JobPage /> }], `/jobs/${ID}`);
    await until(() => document.querySelectorAll('[data-testid="job-result-row"][data-state="succeeded"]').length === 2);
    expect(document.querySelectorAll('[data-testid="job-result-row"][data-state="succeeded"]')).toHaveLength(2);
    const after = resultReads;
    await act(async () => {
      await new Promise((r) => setTimeout(r, 2500));
    });
    expect(resultReads).toBe(after);
  });

  it('asks the results for a state and the whole output of a host', { timeout: 30_000 }, async () => {
    const calls: FetchCall[] = [];
    mockFetch(calls, (url) => {
      if (url.includes('/output')) return json(200, { host_id: 'web-1', exit_code: 0, stdout: 'the whole output', stderr: '', result: null });
      if (url.startsWith(`/v1/user/jobs/${ID}/results`))
        return json(200, { items: [result('web-1', 'succeeded', { output_truncated: true })], total: 1, limit: 20, offset: 0 });
      if (url === `/v1/user/jobs/${ID}`)
        return json(200, { ...base, state: 'finished', totals: { ...zero, succeeded: 4 }, finished_at: '2026-11-27T11:00:05Z' });
      return json(200, {});
    });
    mountRoutes([{ path: '/jobs/:id', element: <JobPage /> }], `/jobs/${ID}?rstate=succeeded`);
    await until(() => q('[data-testid="job-result-row"]') !== null);
    expect(calls.some((c) => c.url.includes('/results?') && c.url.includes('state=succeeded'))).toBe(true);
    act(() => (q('[data-testid="job-result-row"] .ant-table-row-expand-icon') as HTMLElement).click());
    await until(() => q('[data-testid="job-full-output"]') !== null);
    expect(q('[data-testid="job-result-output"]')?.textContent).toContain('up 3 days');
    act(() => (q('[data-testid="job-full-output"]') as HTMLElement).click());
    await until(() => (q('[data-testid="job-full-output-panel"]')?.textContent ?? '').includes('the whole output'));
    expect(calls.some((c) => c.url === `/v1/user/jobs/${ID}/results/web-1/output`)).toBe(true);
  });
});
