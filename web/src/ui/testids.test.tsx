// CONTRACT.md: inputs carry their testid on the <input> itself; a Select on
// the Select. Checks that antd forwards the attributes where the contract
// needs them.
import { Input, InputNumber, Select, Table } from 'antd';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function render(node: React.ReactNode): HTMLElement {
  const el = document.createElement('div');
  document.body.appendChild(el);
  act(() => createRoot(el).render(node));
  return el;
}

describe('antd testid forwarding', () => {
  it('puts testids on input elements', () => {
    const el = render(
      <>
        <Input data-testid="a" />
        <Input.Password data-testid="b" />
        <InputNumber data-testid="c" />
        <Input.Search data-testid="d" />
        <Input.TextArea data-testid="e" />
      </>,
    );
    for (const id of ['a', 'b', 'c', 'd']) expect(el.querySelector(`[data-testid=${id}]`)?.tagName, id).toBe('INPUT');
    expect(el.querySelector('[data-testid=e]')?.tagName).toBe('TEXTAREA');
  });

  it('puts a testid on the Select and row attributes on table rows', () => {
    const el = render(
      <>
        <Select data-testid="s" options={[{ value: 'x', label: 'X' }]} />
        <Table
          rowKey="id"
          dataSource={[{ id: '1' }]}
          columns={[{ dataIndex: 'id' }]}
          onRow={(r) => ({ 'data-testid': 'row', 'data-host-id': r.id }) as React.HTMLAttributes<HTMLElement>}
        />
      </>,
    );
    expect(el.querySelector('[data-testid=s]')).not.toBeNull();
    expect(el.querySelector('[data-testid=row]')?.getAttribute('data-host-id')).toBe('1');
  });
});
