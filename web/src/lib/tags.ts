// Host tags (`{"env":"prod","role":""}`) and tag expressions (`env=prod`,
// `role` = has the key with any value, `role=` = the key with the empty
// value), as the hub validates them (contract issue 26 §1).

export const MAX_TAGS_PER_HOST = 32;
const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const VALUE_RE = /^[A-Za-z0-9_.:/@+-]{0,128}$/;

export type Tags = Record<string, string>;

/** One tag expression: `value` undefined means "has the key, any value". */
export interface TagExpr {
  key: string;
  value?: string;
}

export function isTagKey(k: string): boolean {
  return KEY_RE.test(k);
}

export function isTagValue(v: string): boolean {
  return VALUE_RE.test(v);
}

/** Parses `key`, `key=` or `key=value` (spaces around are ignored); null when the key or value is not valid. */
export function parseTagExpr(s: string): TagExpr | null {
  const t = s.trim();
  const i = t.indexOf('=');
  const key = i < 0 ? t : t.slice(0, i);
  if (!isTagKey(key)) return null;
  if (i < 0) return { key };
  const value = t.slice(i + 1);
  return isTagValue(value) ? { key, value } : null;
}

/** The expression's text: `key` when any value matches, else `key=value` (`key=` for the empty value). */
export function formatTagExpr(e: TagExpr): string {
  return e.value === undefined ? e.key : `${e.key}=${e.value}`;
}

/** How a host's tag reads in a list: `key=value`, or just `key` when the value is empty. */
export function formatTag(key: string, value: string): string {
  return value === '' ? key : `${key}=${value}`;
}

/** A host's tags as sorted [key, value] pairs (null/undefined → none). */
export function tagEntries(tags: Tags | null | undefined): [string, string][] {
  return Object.entries(tags ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A host's tags as the texts an editor shows (`env=prod`, `role`). */
export function tagsToTexts(tags: Tags | null | undefined): string[] {
  return tagEntries(tags).map(([k, v]) => formatTag(k, v));
}

export interface ParsedTags {
  tags: Tags;
  /** Texts that are not a valid tag. */
  invalid: string[];
  /** Keys given twice with different values. */
  duplicate: string[];
}

/**
 * Reads what an editor holds (`env=prod`, `role`) into a tags object; a text
 * without `=` is the key with the empty value.
 */
export function textsToTags(texts: readonly string[]): ParsedTags {
  const out: ParsedTags = { tags: {}, invalid: [], duplicate: [] };
  for (const raw of texts) {
    if (raw.trim() === '') continue;
    const e = parseTagExpr(raw);
    if (!e) {
      out.invalid.push(raw.trim());
      continue;
    }
    const v = e.value ?? '';
    if (e.key in out.tags && out.tags[e.key] !== v) {
      if (!out.duplicate.includes(e.key)) out.duplicate.push(e.key);
      continue;
    }
    out.tags[e.key] = v;
  }
  return out;
}

/** Valid, distinct tag expressions from a list (the URL's `tag=` params), in their given order. */
export function cleanTagExprs(list: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of list) {
    const e = parseTagExpr(s);
    if (!e) continue;
    const f = formatTagExpr(e);
    if (!out.includes(f)) out.push(f);
  }
  return out;
}

/** Whether a host's tags satisfy every expression (the hub's rule, for highlighting). */
export function tagsMatch(tags: Tags | null | undefined, exprs: readonly string[]): boolean {
  const t = tags ?? {};
  return exprs.every((s) => {
    const e = parseTagExpr(s);
    if (!e || !(e.key in t)) return false;
    return e.value === undefined || t[e.key] === e.value;
  });
}

/** A host's tags; `{}` when the host object has none (a hub before tags). */
export function tagsOf(h: object): Tags {
  const t = (h as { tags?: Tags | null }).tags;
  return t && typeof t === 'object' ? t : {};
}
