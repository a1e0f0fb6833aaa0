// Binds a ListSpec's state to the URL query: the page reads the state from
// the URL, every change writes the URL (replace, so typing does not stack
// history entries; a link or the back button restores the list), and the
// search box's text reaches the URL after a pause.
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { useSearchBox } from '../../../lib/useSearchBox';
import { applyChange, stateFromSearch, stateToSearch, type ListSpec, type ListState } from './listQuery';

export { SEARCH_DEBOUNCE_MS } from '../../../lib/useSearchBox';

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

  const readQ = useCallback((cur: URLSearchParams) => stateFromSearch(spec, cur).q, [spec]);
  const applyQ = useCallback((q: string | undefined) => update({ q }), [update]);
  const { text, setText } = useSearchBox(state.q, readQ, applyQ);

  const searchNow = useCallback(
    (v: string) => {
      setText(v);
      update({ q: v.trim() || undefined });
    },
    [update, setText],
  );

  return { state, update, text, setText, searchNow } satisfies {
    state: ListState;
    update: (c: Change) => void;
    text: string;
    setText: (v: string) => void;
    searchNow: (v: string) => void;
  };
}
