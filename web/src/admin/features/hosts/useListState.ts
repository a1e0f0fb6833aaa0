// Binds a ListSpec's state to the URL query: the page reads the state from
// the URL, every change writes the URL (replace, so typing does not stack
// history entries; a link or the back button restores the list), and the
// search box's text reaches the URL after a pause.
import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { applyChange, stateFromSearch, stateToSearch, type ListSpec, type ListState } from './listQuery';

/** How long typing pauses before the search applies. */
export const SEARCH_DEBOUNCE_MS = 300;

type Change = Parameters<typeof applyChange>[1];

export function useListState(spec: ListSpec) {
  const [sp, setSp] = useSearchParams();
  const state = stateFromSearch(spec, sp);

  // Changes merge into the URL as it is when they apply, so a late debounce
  // cannot undo a newer change.
  const update = useCallback(
    (c: Change) => setSp((cur) => stateToSearch(spec, applyChange(stateFromSearch(spec, cur), c)), { replace: true }),
    [setSp, spec],
  );

  // The search box's text; follows the URL when the URL changes under it.
  const [text, setText] = useState(state.q ?? '');
  const [urlQ, setUrlQ] = useState(state.q);
  if (urlQ !== state.q) {
    setUrlQ(state.q);
    if ((state.q ?? '') !== text.trim()) setText(state.q ?? '');
  }
  const typed = text.trim();
  useEffect(() => {
    const id = setTimeout(() => {
      const now = stateFromSearch(spec, new URLSearchParams(window.location.search));
      if ((now.q ?? '') === typed) return;
      update({ q: typed || undefined });
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(id);
  }, [typed, update, spec]);

  const searchNow = useCallback(
    (v: string) => {
      setText(v);
      update({ q: v.trim() || undefined });
    },
    [update],
  );

  return { state, update, text, setText, searchNow } satisfies {
    state: ListState;
    update: (c: Change) => void;
    text: string;
    setText: (v: string) => void;
    searchNow: (v: string) => void;
  };
}
