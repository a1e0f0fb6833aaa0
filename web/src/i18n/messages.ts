// The console's messages: src/i18n/{en,zh-CN}.json plus every feature's
// src/features/<name>/i18n/{en,zh-CN}.json, merged at build time. A feature
// adds its own files and prefixes its keys with its name (`host.`…);
// messages.test.ts fails on a key missing in either language or defined twice.

export const LANGS = ['en', 'zh-CN'] as const;
export type Lang = (typeof LANGS)[number];
export type Messages = Record<string, string>;

const files = import.meta.glob<Messages>(['./*.json', '../features/*/i18n/*.json'], {
  eager: true,
  import: 'default',
});

/** Message files by language, each with its path, for the completeness test. */
export function messageFiles(): Record<Lang, { path: string; messages: Messages }[]> {
  const out: Record<Lang, { path: string; messages: Messages }[]> = { en: [], 'zh-CN': [] };
  for (const [path, messages] of Object.entries(files)) {
    const lang = /([^/]+)\.json$/.exec(path)?.[1];
    if (lang === 'en' || lang === 'zh-CN') out[lang].push({ path, messages });
  }
  return out;
}

function merge(lang: Lang): Messages {
  return Object.assign({}, ...messageFiles()[lang].map((f) => f.messages)) as Messages;
}

export const catalogs: Record<Lang, Messages> = { en: merge('en'), 'zh-CN': merge('zh-CN') };

/** Replaces `{name}` placeholders with vars' values. */
export function interpolate(s: string, vars?: Record<string, string | number>): string {
  if (!vars) return s;
  return s.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}

/** Picks the language: a saved choice, else the browser's first zh* or en preference, else English. */
export function detectLang(saved: string | null, browser: readonly string[]): Lang {
  if (saved === 'en' || saved === 'zh-CN') return saved;
  for (const l of browser) {
    const low = l.toLowerCase();
    if (low.startsWith('zh')) return 'zh-CN';
    if (low.startsWith('en')) return 'en';
  }
  return 'en';
}
