import { createContext, useContext, useMemo } from 'react';
import type { Lang } from './messages';
import * as f from '../lib/format';

export interface I18n {
  lang: Lang;
  setLang: (l: Lang) => void;
  /** The message for `key` in the current language, with `{name}` placeholders filled from vars. */
  t: (key: string, vars?: Record<string, string | number>) => string;
}

export const I18nContext = createContext<I18n | null>(null);

/** The current language, its setter and t(). */
export function useI18n(): I18n {
  const v = useContext(I18nContext);
  if (!v) throw new Error('useI18n outside I18nProvider');
  return v;
}

/** The formatting helpers of src/lib/format.ts bound to the current language. */
export function useFormat() {
  const { lang } = useI18n();
  return useMemo(
    () => ({
      dateTime: (v: string | number | Date | null | undefined) => f.formatDateTime(lang, v),
      date: (v: string | number | Date | null | undefined) => f.formatDate(lang, v),
      time: (v: string | number | Date | null | undefined) => f.formatTime(lang, v),
      number: (n: number | null | undefined, maxFraction?: number) => f.formatNumber(lang, n, maxFraction),
      tokens: (n: number | null | undefined) => f.formatTokens(lang, n),
      cny: (n: number | null | undefined) => f.formatCNY(lang, n),
      percent: (n: number | null | undefined) => f.formatPercent(lang, n),
      bytes: (n: number | null | undefined) => f.formatBytes(lang, n),
      duration: (s: number | null | undefined) => f.formatDuration(s),
    }),
    [lang],
  );
}
