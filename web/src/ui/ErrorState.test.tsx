// The error state of a list: a failed load offers a retry under "Could not
// load this"; a page too deep to open says so under its own heading and
// offers none (asking again cannot reach it).
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { PageTooDeepError } from '../lib/cursorPages';
import { mountRoutes } from '../test/helpers';
import { ErrorState } from './ErrorState';

function mount(error: unknown, onRetry?: () => void) {
  return mountRoutes([{ path: '/', element: <ErrorState error={error} onRetry={onRetry} /> }], '/').el;
}

describe('ErrorState', () => {
  it('shows a failed load with its message and a retry', () => {
    const retry = vi.fn();
    const el = mount(new ApiError(500, 'internal', 'the hub failed'), retry);
    expect(el.textContent).toContain('Could not load this');
    const button = [...el.querySelectorAll('button')].find((b) => b.textContent?.includes('Try again'));
    expect(button).toBeDefined();
    button?.click();
    expect(retry).toHaveBeenCalledOnce();
  });

  it('gives a page too deep to open its own heading and no retry', () => {
    const el = mount(new PageTooDeepError('This page lies past item 10,000.'));
    expect(el.textContent).toContain('This page is too far in to open directly');
    expect(el.textContent).toContain('This page lies past item 10,000.');
    expect(el.textContent).not.toContain('Could not load this');
    expect(el.querySelector('button')).toBeNull();
  });
});
