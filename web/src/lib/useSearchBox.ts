// A list's search box bound to the URL's `q`: typing applies after a pause,
// and a URL that changes under the box (the back button, a link) replaces
// its text.
import { useEffect, useState } from 'react';

/** How long typing pauses before the search applies. */
export const SEARCH_DEBOUNCE_MS = 300;

/**
 * urlQ is the search as the page's URL holds it; readQ reads it from a query
 * string; apply writes a new search. apply and readQ must keep their identity
 * between renders (module functions or useCallback).
 */
export function useSearchBox(
  urlQ: string | undefined,
  readQ: (sp: URLSearchParams) => string | undefined,
  apply: (q: string | undefined) => void,
) {
  const [text, setText] = useState(urlQ ?? '');
  const [seen, setSeen] = useState(urlQ);
  if (seen !== urlQ) {
    setSeen(urlQ);
    if ((urlQ ?? '') !== text.trim()) setText(urlQ ?? '');
  }
  const typed = text.trim();
  const pending = typed !== (urlQ ?? '');
  useEffect(() => {
    if (!pending) return;
    // A link followed before the pause ends leaves this page in place while
    // the next one loads; the search must not follow the browser there.
    const path = window.location.pathname;
    const id = setTimeout(() => {
      if (window.location.pathname !== path) return;
      // Read the address bar as it is now: a filter changed meanwhile stays.
      if ((readQ(new URLSearchParams(window.location.search)) ?? '') === typed) return;
      apply(typed || undefined);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(id);
  }, [pending, typed, readQ, apply]);
  return { text, setText };
}
