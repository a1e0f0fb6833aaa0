import { Flex, Tag, Tooltip } from 'antd';
import type { Tags } from '../../lib/tags';
import { formatTag, tagEntries } from '../../lib/tags';

/** A host's tags as antd Tags; past `max`, a "+N" tag lists the rest in its tooltip. */
export function TagList({ tags, max = 4, onPick }: { tags: Tags | null | undefined; max?: number; onPick?: (expr: string) => void }) {
  const all = tagEntries(tags);
  if (all.length === 0) return <span data-testid="host-tags">—</span>;
  const shown = all.slice(0, max);
  const rest = all.slice(max);
  return (
    <Flex data-testid="host-tags" gap={4} wrap="wrap" style={{ maxWidth: 320 }}>
      {shown.map(([k, v]) => (
        <Tag
          key={k}
          data-testid="host-tag"
          data-tag={formatTag(k, v)}
          color="geekblue"
          style={{ margin: 0, cursor: onPick ? 'pointer' : undefined }}
          onClick={onPick ? () => onPick(v === '' ? k : `${k}=${v}`) : undefined}
        >
          {formatTag(k, v)}
        </Tag>
      ))}
      {rest.length > 0 && (
        <Tooltip title={rest.map(([k, v]) => formatTag(k, v)).join(', ')}>
          <Tag style={{ margin: 0 }}>+{rest.length}</Tag>
        </Tooltip>
      )}
    </Flex>
  );
}
