// The admin console's messages: the user console's shell files (for the
// shared `common.*`, `layout.switchLanguage`… keys the shared UI uses), the
// admin shell's src/admin/i18n/{en,zh-CN}.json and every admin feature's
// src/admin/features/<name>/i18n/{en,zh-CN}.json, plus the user console's
// feature files (admin pages reuse the metrics chart and the terminal), merged
// at build time.
// messages.test.ts fails on a key missing in either language or defined twice.
import type { Lang, Messages } from '../../i18n';

const files = import.meta.glob<Messages>([
  './*.json',
  '../features/*/i18n/*.json',
  '../../i18n/*.json',
  '../../features/*/i18n/*.json',
], {
  eager: true,
  import: 'default',
});

/** Message files by language, each with its path, for the completeness test. */
export function adminMessageFiles(): Record<Lang, { path: string; messages: Messages }[]> {
  const out: Record<Lang, { path: string; messages: Messages }[]> = { en: [], 'zh-CN': [] };
  for (const [path, messages] of Object.entries(files)) {
    const lang = /([^/]+)\.json$/.exec(path)?.[1];
    if (lang === 'en' || lang === 'zh-CN') out[lang].push({ path, messages });
  }
  return out;
}

function merge(lang: Lang): Messages {
  return Object.assign({}, ...adminMessageFiles()[lang].map((f) => f.messages)) as Messages;
}

export const adminCatalogs: Record<Lang, Messages> = { en: merge('en'), 'zh-CN': merge('zh-CN') };
