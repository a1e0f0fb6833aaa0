import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Empty, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState, type HTMLAttributes } from 'react';
import type { ApiKey, ApiKeyCreated } from '../api/types';
import { useApiKeys, useDeleteApiKey } from '../hooks/apiKeys';
import { useFormat, useI18n } from '../i18n';
import { ErrorState } from '../ui/ErrorState';
import { PageHeader } from '../ui/PageHeader';
import { isSkeletonRow, rowKeyOf, withSkeleton } from '../ui/tableSkeleton';
import { useConfirm } from '../ui/useConfirm';
import { CreateApiKeyDialog, ApiKeySecretDialog } from './ApiKeyDialogs';

export default function ApiKeysPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const keys = useApiKeys();
  const del = useDeleteApiKey();
  const confirm = useConfirm();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);

  const columns: ColumnsType<ApiKey> = [
    { title: t('apiKeys.col.name'), dataIndex: 'name', key: 'name' },
    {
      title: t('apiKeys.col.prefix'),
      dataIndex: 'prefix',
      key: 'prefix',
      render: (p: string) => <Typography.Text code>{p}…</Typography.Text>,
    },
    { title: t('apiKeys.col.created'), dataIndex: 'created_at', key: 'created', render: (v: string) => fmt.dateTime(v) },
    {
      title: t('apiKeys.col.lastUsed'),
      dataIndex: 'last_used_at',
      key: 'last_used',
      render: (v?: string) => (v ? fmt.dateTime(v) : t('common.never')),
    },
    {
      title: t('common.actions'),
      key: 'actions',
      align: 'right',
      fixed: 'right',
      render: (_, k) => (
        <Button
          danger
          icon={<DeleteOutlined />}
          data-testid="apikey-delete"
          aria-label={t('apiKeys.deleteLabel', { name: k.name })}
          onClick={() =>
            confirm({
              title: t('apiKeys.deleteTitle', { name: k.name }),
              content: t('apiKeys.deleteText'),
              onOk: () => del.mutateAsync(k.id),
            })
          }
        >
          {t('apiKeys.delete')}
        </Button>
      ),
    },
  ];

  const table = withSkeleton(columns, keys.data, keys.isPending, 3);

  return (
    <>
      <PageHeader
        title={t('apiKeys.title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} data-testid="apikey-create" onClick={() => setCreating(true)}>
            {t('apiKeys.create')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('apiKeys.intro')}</Typography.Paragraph>
      {keys.isError && !keys.data ? (
        <ErrorState error={keys.error} onRetry={() => void keys.refetch()} />
      ) : (
        <Table
          rowKey={rowKeyOf}
          columns={table.columns}
          dataSource={table.dataSource}
          pagination={false}
          scroll={{ x: 'max-content' }}
          onRow={(r) =>
            (isSkeletonRow(r) ? {} : { 'data-testid': 'apikey-row', 'data-key-id': r.id }) as HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('apiKeys.empty')}>
                <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
                  {t('apiKeys.create')}
                </Button>
              </Empty>
            ),
          }}
        />
      )}
      <CreateApiKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(k) => {
          setCreating(false);
          setCreated(k);
        }}
      />
      <ApiKeySecretDialog created={created} onDone={() => setCreated(null)} />
    </>
  );
}
