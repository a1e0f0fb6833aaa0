// The admin console's messages: the user console's shell files (for the
// shared `common.*`, `layout.switchLanguage`… keys the shared UI uses), the
// admin shell's src/admin/i18n/{en,zh-CN}.json and every admin feature's
// src/admin/features/<name>/i18n/{en,zh-CN}.json, plus the user console's
// feature files (admin pages reuse the metrics chart and the terminal), merged
// at build time.
// messages.test.ts fails on a key missing in either language or defined twice.
import { groupMessageFiles, mergeCatalogs, type Lang, type MessageFiles, type Messages } from '../../i18n/messages';

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
export function adminMessageFiles(): MessageFiles {
  return groupMessageFiles(files);
}

export const adminCatalogs: Record<Lang, Messages> = mergeCatalogs(adminMessageFiles());
