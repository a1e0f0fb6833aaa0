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

export type MessageFiles = Record<Lang, { path: string; messages: Messages }[]>;

/** Groups glob-imported message files (`…/<lang>.json`) by language, each with its path. */
export function groupMessageFiles(files: Record<string, Messages>): MessageFiles {
  const out: MessageFiles = { en: [], 'zh-CN': [] };
  for (const [path, messages] of Object.entries(files)) {
    const lang = /([^/]+)\.json$/.exec(path)?.[1];
    if (lang === 'en' || lang === 'zh-CN') out[lang].push({ path, messages });
  }
  return out;
}

/** Merges each language's files into one catalog. */
export function mergeCatalogs(byLang: MessageFiles): Record<Lang, Messages> {
  const merge = (lang: Lang) => Object.assign({}, ...byLang[lang].map((f) => f.messages)) as Messages;
  return { en: merge('en'), 'zh-CN': merge('zh-CN') };
}

/** Message files by language, each with its path, for the completeness test. */
export function messageFiles(): MessageFiles {
  return groupMessageFiles(files);
}

export const catalogs: Record<Lang, Messages> = mergeCatalogs(messageFiles());

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
