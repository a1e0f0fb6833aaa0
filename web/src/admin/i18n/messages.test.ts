import { describe, expect, it } from 'vitest';
import { adminCatalogs, adminMessageFiles } from './messages';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('admin messages', () => {
  it('has the same keys in English and Chinese', () => {
    const en = Object.keys(adminCatalogs.en).sort();
    const zh = Object.keys(adminCatalogs['zh-CN']).sort();
    expect(en.filter((k) => !zh.includes(k)), 'missing in zh-CN').toEqual([]);
    expect(zh.filter((k) => !en.includes(k)), 'missing in en').toEqual([]);
    expect(en.filter((k) => k.startsWith('admin.')).length).toBeGreaterThan(50);
  });

  it('pairs every message file with its other language', () => {
    const files = adminMessageFiles();
    const dirs = (l: 'en' | 'zh-CN') => files[l].map((f) => f.path.replace(/[^/]+\.json$/, '')).sort();
    expect(dirs('zh-CN')).toEqual(dirs('en'));
  });

  it('defines each key once across files', () => {
    for (const lang of ['en', 'zh-CN'] as const) {
      const seen = new Map<string, string>();
      for (const f of adminMessageFiles()[lang]) {
        for (const k of Object.keys(f.messages)) {
          expect(seen.get(k), `${k} in ${f.path} and ${seen.get(k)}`).toBeUndefined();
          seen.set(k, f.path);
        }
      }
    }
  });

  it('uses the same placeholders in both languages and no empty message', () => {
    for (const [k, s] of Object.entries(adminCatalogs.en)) {
      const zh = adminCatalogs['zh-CN'][k] ?? '';
      expect(s.trim(), k).not.toBe('');
      expect(zh.trim(), k).not.toBe('');
      expect(placeholders(zh), k).toEqual(placeholders(s));
    }
  });
});
