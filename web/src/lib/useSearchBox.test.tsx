// The search box's pause: typing applies once, and a page left before the
// pause ends does not carry the search to the next address.
import { act, useEffect } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SEARCH_DEBOUNCE_MS, useSearchBox } from './useSearchBox';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const readQ = (sp: URLSearchParams) => sp.get('q') ?? undefined;
let root: Root | null = null;
let box: ReturnType<typeof useSearchBox> | null = null;
let applied: (string | undefined)[] = [];
const apply = (q: string | undefined) => {
  applied.push(q);
};

function Box({ q }: { q?: string }) {
  const b = useSearchBox(q, readQ, apply);
  useEffect(() => {
    box = b;
  });
  return null;
}

function mount(q?: string) {
  const el = document.createElement('div');
  root = createRoot(el);
  act(() => root!.render(<Box q={q} />));
}

beforeEach(() => {
  vi.useFakeTimers();
  applied = [];
  window.history.replaceState(null, '', '/admin/hosts');
});

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  vi.useRealTimers();
});

describe('useSearchBox', () => {
  it('applies the typed text once, after the pause', () => {
    mount();
    act(() => box!.setText('alice'));
    act(() => {
      vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS / 2);
    });
    expect(applied).toEqual([]);
    act(() => box!.setText('alice@'));
    act(() => {
      vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS + 1);
    });
    expect(applied).toEqual(['alice@']);
  });

  it('schedules nothing for a search the URL already holds', () => {
    window.history.replaceState(null, '', '/admin/hosts?q=kest');
    mount('kest');
    expect(box!.text).toBe('kest');
    act(() => {
      vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS * 3);
    });
    expect(applied).toEqual([]);
  });

  it('does not follow a link taken before the pause ends', () => {
    mount();
    act(() => box!.setText('kest'));
    // A link to a host page: the browser's address changes while this page
    // stays mounted until the next one has loaded.
    window.history.pushState(null, '', '/admin/hosts/h1');
    act(() => {
      vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS * 3);
    });
    expect(applied).toEqual([]);
  });

  it('takes the text of a URL that changed under it', () => {
    mount('one');
    act(() => root!.render(<Box q="two" />));
    expect(box!.text).toBe('two');
  });
});
