import { DeleteOutlined, EditOutlined, SaveOutlined } from '@ant-design/icons';
import { Button, Form, Input, Modal, Select, Space, Tooltip } from 'antd';
import { useState } from 'react';
import type { SavedFilter } from '../../api/types';
import { useCreateFilter, useDeleteFilter, useRenameFilter, useSavedFilters } from '../../hooks/tags';
import { useI18n } from '../../i18n';
import type { HostFilterQuery } from '../../lib/paging';
import { FormError } from '../../ui/FormError';
import { useConfirm } from '../../ui/useConfirm';

function NameDialog(props: {
  title: string;
  initial: string;
  pending: boolean;
  error: unknown;
  onSubmit: (name: string) => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const [form] = Form.useForm<{ name: string }>();
  return (
    <Modal open title={props.title} onCancel={props.onClose} footer={null} destroyOnHidden>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ name: props.initial }}
        disabled={props.pending}
        onFinish={(v) => props.onSubmit(v.name.trim())}
      >
        <FormError error={props.error} />
        <Form.Item
          name="name"
          label={t('filters.name')}
          rules={[{ required: true, whitespace: true, message: t('filters.nameRequired') }, { max: 100 }]}
        >
          <Input data-testid="saved-filter-name" autoFocus maxLength={100} />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={props.pending} data-testid="saved-filter-submit" block>
          {t('common.save')}
        </Button>
      </Form>
    </Modal>
  );
}

/**
 * The hosts list's saved filters: pick one (its criteria replace the list's),
 * save the current criteria under a name, rename or delete the one picked.
 */
export function SavedFilters(props: {
  current?: string;
  query: HostFilterQuery;
  canSave: boolean;
  onPick: (f: SavedFilter | null) => void;
}) {
  const { t } = useI18n();
  const confirm = useConfirm();
  const list = useSavedFilters();
  const create = useCreateFilter();
  const rename = useRenameFilter();
  const del = useDeleteFilter();
  const [dialog, setDialog] = useState<'save' | 'rename' | null>(null);
  const items = list.data?.items ?? [];
  const picked = items.find((f) => f.id === props.current);
  const close = () => {
    setDialog(null);
    create.reset();
    rename.reset();
  };
  return (
    <Space.Compact>
      <Select
        data-testid="saved-filter-select"
        aria-label={t('filters.pick')}
        placeholder={t('filters.pick')}
        allowClear
        value={picked ? picked.id : undefined}
        onChange={(id?: string) => props.onPick(items.find((f) => f.id === id) ?? null)}
        options={items.map((f) => ({ value: f.id, label: f.name }))}
        loading={list.isPending}
        notFoundContent={t('filters.none')}
        style={{ width: 200 }}
        popupMatchSelectWidth={false}
      />
      <Tooltip title={t('filters.save')}>
        <Button
          icon={<SaveOutlined />}
          aria-label={t('filters.save')}
          data-testid="saved-filter-save"
          disabled={!props.canSave}
          onClick={() => setDialog('save')}
        />
      </Tooltip>
      {picked && (
        <>
          <Tooltip title={t('filters.rename')}>
            <Button icon={<EditOutlined />} aria-label={t('filters.rename')} data-testid="saved-filter-rename" onClick={() => setDialog('rename')} />
          </Tooltip>
          <Tooltip title={t('filters.delete')}>
            <Button
              icon={<DeleteOutlined />}
              aria-label={t('filters.delete')}
              data-testid="saved-filter-delete"
              onClick={() =>
                confirm({
                  title: t('filters.deleteTitle', { name: picked.name }),
                  onOk: () => del.mutateAsync(picked.id).then(() => props.onPick(null)),
                })
              }
            />
          </Tooltip>
        </>
      )}
      {dialog === 'save' && (
        <NameDialog
          title={t('filters.saveTitle')}
          initial=""
          pending={create.isPending}
          error={create.error}
          onClose={close}
          onSubmit={(name) =>
            create.mutate(
              { name, query: props.query },
              {
                onSuccess: (f) => {
                  close();
                  props.onPick(f);
                },
              },
            )
          }
        />
      )}
      {dialog === 'rename' && picked && (
        <NameDialog
          title={t('filters.renameTitle')}
          initial={picked.name}
          pending={rename.isPending}
          error={rename.error}
          onClose={close}
          onSubmit={(name) => rename.mutate({ id: picked.id, name }, { onSuccess: close })}
        />
      )}
    </Space.Compact>
  );
}
