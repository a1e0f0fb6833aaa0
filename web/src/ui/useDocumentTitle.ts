import { useEffect } from 'react';

/** Sets the tab's title to "<title> · hostgate" while the page is shown. */
export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    if (!title) return;
    const before = document.title;
    document.title = `${title} · hostgate`;
    return () => {
      document.title = before;
    };
  }, [title]);
}
