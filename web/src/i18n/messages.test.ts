import { describe, expect, it } from 'vitest';
import { catalogs, detectLang, interpolate, messageFiles } from './messages';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('messages', () => {
  it('has the same keys in English and Chinese', () => {
    const en = Object.keys(catalogs.en).sort();
    const zh = Object.keys(catalogs['zh-CN']).sort();
    expect(en.filter((k) => !zh.includes(k)), 'missing in zh-CN').toEqual([]);
    expect(zh.filter((k) => !en.includes(k)), 'missing in en').toEqual([]);
    expect(en.length).toBeGreaterThan(50);
  });

  it('pairs every message file with its other language', () => {
    const files = messageFiles();
    const dirs = (l: 'en' | 'zh-CN') => files[l].map((f) => f.path.replace(/[^/]+\.json$/, '')).sort();
    expect(dirs('zh-CN')).toEqual(dirs('en'));
  });

  it('defines each key once across files', () => {
    for (const lang of ['en', 'zh-CN'] as const) {
      const seen = new Map<string, string>();
      for (const f of messageFiles()[lang]) {
        for (const k of Object.keys(f.messages)) {
          expect(seen.get(k), `${k} in ${f.path} and ${seen.get(k)}`).toBeUndefined();
          seen.set(k, f.path);
        }
      }
    }
  });

  it('uses the same placeholders in both languages and no empty message', () => {
    for (const [k, s] of Object.entries(catalogs.en)) {
      const zh = catalogs['zh-CN'][k] ?? '';
      expect(s.trim(), k).not.toBe('');
      expect(zh.trim(), k).not.toBe('');
      expect(placeholders(zh), k).toEqual(placeholders(s));
    }
  });

  it('fills placeholders', () => {
    expect(interpolate('{n} of {total}', { n: 1, total: 2 })).toBe('1 of 2');
    expect(interpolate('{missing}', {})).toBe('{missing}');
  });

  it('detects the language: saved choice first, then zh* → zh-CN', () => {
    expect(detectLang('en', ['zh-CN'])).toBe('en');
    expect(detectLang(null, ['zh-TW', 'en'])).toBe('zh-CN');
    expect(detectLang(null, ['zh'])).toBe('zh-CN');
    expect(detectLang(null, ['fr-FR', 'en-GB'])).toBe('en');
    expect(detectLang('xx', ['de'])).toBe('en');
  });
});
