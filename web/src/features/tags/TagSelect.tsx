import { Select } from 'antd';
import { useMemo } from 'react';
import { useTagList } from '../../hooks/tags';
import { useI18n } from '../../i18n';
import { formatTag } from '../../lib/tags';

/**
 * A multiple Select of tag texts (`key=value`, `key`) offering the caller's
 * tags with their host counts; anything else can be typed.
 */
export function TagSelect(props: {
  testid: string;
  value: string[];
  onChange: (v: string[]) => void;
  placeholder: string;
  /** Offer keys alone (`role`, "has the key") beside key=value. */
  keys?: boolean;
  /** Offer only keys (removing tags). */
  keysOnly?: boolean;
  width?: number | string;
  autoFocus?: boolean;
}) {
  const { t } = useI18n();
  const list = useTagList();
  const options = useMemo((): { value?: string; label: string; options?: { value: string; label: string }[] }[] => {
    const items = list.data?.items ?? [];
    const keyCount = new Map<string, number>();
    for (const it of items) keyCount.set(it.key, (keyCount.get(it.key) ?? 0) + it.host_count);
    const byKey = [...keyCount].map(([k, n]) => ({ value: k, label: `${k} (${n})` }));
    if (props.keysOnly) return byKey;
    // Editing: `role` is the key with the empty value. Filtering: `role=` is
    // that, and the bare key (second group) matches any value.
    const pairs = items.map((it) => ({
      value: props.keys && it.value === '' ? `${it.key}=` : formatTag(it.key, it.value),
      label: `${props.keys && it.value === '' ? `${it.key}=` : formatTag(it.key, it.value)} (${it.host_count})`,
    }));
    if (!props.keys) return pairs;
    return [
      { label: t('tags.optPairs'), options: pairs },
      { label: t('tags.optKeys'), options: byKey },
    ];
  }, [list.data, props.keys, props.keysOnly, t]);
  return (
    <Select
      data-testid={props.testid}
      aria-label={props.placeholder}
      mode="tags"
      allowClear
      autoFocus={props.autoFocus}
      value={props.value}
      onChange={(v: string[]) => props.onChange(v.map((s) => s.trim()).filter(Boolean))}
      tokenSeparators={[',', ' ']}
      placeholder={props.placeholder}
      options={options}
      loading={list.isPending}
      style={{ width: props.width ?? 280, maxWidth: '100%' }}
      maxTagCount="responsive"
    />
  );
}
