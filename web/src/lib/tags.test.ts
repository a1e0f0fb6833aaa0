import { describe, expect, it } from 'vitest';
import {
  cleanTagExprs,
  formatTag,
  formatTagExpr,
  isTagKey,
  isTagValue,
  parseTagExpr,
  tagEntries,
  tagsMatch,
  tagsToTexts,
  textsToTags,
} from './tags';

describe('tag expressions', () => {
  it('parses key, key= and key=value', () => {
    expect(parseTagExpr('env=prod')).toEqual({ key: 'env', value: 'prod' });
    expect(parseTagExpr(' role ')).toEqual({ key: 'role' });
    expect(parseTagExpr('role=')).toEqual({ key: 'role', value: '' });
    expect(parseTagExpr('url=https://x.example/a@b+c')).toEqual({ key: 'url', value: 'https://x.example/a@b+c' });
    // Only the first = splits: the value may not hold another one.
    expect(parseTagExpr('a=b=c')).toBeNull();
  });

  it('refuses what the hub refuses', () => {
    expect(parseTagExpr('')).toBeNull();
    expect(parseTagExpr('=prod')).toBeNull();
    expect(parseTagExpr('-env=prod')).toBeNull();
    expect(parseTagExpr('env name=x')).toBeNull();
    expect(parseTagExpr('env=a b')).toBeNull();
    expect(isTagKey('a'.repeat(64))).toBe(true);
    expect(isTagKey('a'.repeat(65))).toBe(false);
    expect(isTagKey('K8s.node_pool-1')).toBe(true);
    expect(isTagValue('')).toBe(true);
    expect(isTagValue('v'.repeat(128))).toBe(true);
    expect(isTagValue('v'.repeat(129))).toBe(false);
  });

  it('formats expressions and tags back', () => {
    expect(formatTagExpr({ key: 'env', value: 'prod' })).toBe('env=prod');
    expect(formatTagExpr({ key: 'role' })).toBe('role');
    expect(formatTagExpr({ key: 'role', value: '' })).toBe('role=');
    expect(formatTag('role', '')).toBe('role');
    expect(formatTag('env', 'prod')).toBe('env=prod');
    for (const s of ['env=prod', 'role', 'role=']) expect(formatTagExpr(parseTagExpr(s)!)).toBe(s);
  });

  it('cleans a list of expressions: invalid and repeated ones dropped, order kept', () => {
    expect(cleanTagExprs(['role', 'env=prod', 'bad key', ' env=prod', 'role='])).toEqual(['role', 'env=prod', 'role=']);
  });

  it('matches host tags like the hub', () => {
    const tags = { env: 'prod', role: '' };
    expect(tagsMatch(tags, ['env=prod', 'role'])).toBe(true);
    expect(tagsMatch(tags, ['role='])).toBe(true);
    expect(tagsMatch(tags, ['env='])).toBe(false);
    expect(tagsMatch(tags, ['zone'])).toBe(false);
    expect(tagsMatch(undefined, [])).toBe(true);
  });
});

describe('host tags in an editor', () => {
  it('lists tags sorted by key', () => {
    expect(tagEntries({ role: '', env: 'prod' })).toEqual([
      ['env', 'prod'],
      ['role', ''],
    ]);
    expect(tagsToTexts({ role: '', env: 'prod' })).toEqual(['env=prod', 'role']);
    expect(tagsToTexts(null)).toEqual([]);
  });

  it('reads texts into tags, a bare key being the empty value', () => {
    expect(textsToTags(['env=prod', 'role', ''])).toEqual({ tags: { env: 'prod', role: '' }, invalid: [], duplicate: [] });
    expect(textsToTags(['env=prod', 'env=dev', 'env=prod', 'x y'])).toEqual({
      tags: { env: 'prod' },
      invalid: ['x y'],
      duplicate: ['env'],
    });
  });
});
