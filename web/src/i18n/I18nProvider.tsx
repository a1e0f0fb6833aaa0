import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { catalogs as userCatalogs, detectLang, interpolate, type Lang, type Messages } from './messages';
import { I18nContext, type I18n } from './context';

const STORAGE_KEY = 'hostgate.lang';

function initialLang(): Lang {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem(STORAGE_KEY);
  } catch {
    // storage may be unavailable (private mode); fall back to the browser
  }
  return detectLang(saved, navigator.languages ?? [navigator.language]);
}

/**
 * Holds the chosen language, saves it, and keeps <html lang> in step.
 * `catalogs` are the messages by language: the user console's by default,
 * the admin console passes its own (src/admin/i18n).
 */
export function I18nProvider({
  children,
  catalogs = userCatalogs,
}: {
  children: ReactNode;
  catalogs?: Record<Lang, Messages>;
}) {
  const [lang, setLangState] = useState<Lang>(initialLang);

  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);

  const setLang = useCallback((l: Lang) => {
    setLangState(l);
    try {
      localStorage.setItem(STORAGE_KEY, l);
    } catch {
      // not saved; the choice still holds for this page
    }
  }, []);

  const value = useMemo<I18n>(() => {
    const cat = catalogs[lang];
    const t = (key: string, vars?: Record<string, string | number>) => {
      const s = cat[key] ?? catalogs.en[key];
      if (s === undefined) {
        if (import.meta.env.DEV) console.warn(`i18n: missing key ${key}`);
        return key;
      }
      return interpolate(s, vars);
    };
    return { lang, setLang, t };
  }, [lang, setLang, catalogs]);

  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}
