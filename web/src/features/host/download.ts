// Downloads a file from an authenticated hub route: the session is refreshed
// on a 401 like any API call, and a refusal becomes an ApiError with the
// hub's words instead of a saved error page.
import { refreshSession, toApiError } from '../../api/client';

/** The file name a Content-Disposition header names, if any. */
export function dispositionName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(header);
  return plain?.[1] ?? null;
}

/** Saves a Blob under a name through a short-lived Blob URL. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** GETs path with the session cookies and saves the answer; throws ApiError on a refusal. */
export async function downloadFrom(path: string, fallbackName: string): Promise<void> {
  const get = () => fetch(path, { credentials: 'same-origin' });
  let res = await get();
  if (res.status === 401 && (await refreshSession())) res = await get();
  if (!res.ok) throw await toApiError(res);
  saveBlob(await res.blob(), dispositionName(res.headers.get('Content-Disposition')) ?? fallbackName);
}
