// The host's edit dialog (name and listen port).
import { Button, Form, Input, InputNumber, Modal } from 'antd';
import type { Host } from '../../api/types';
import { useI18n } from '../../i18n';
import { FormError } from '../../ui/FormError';
import { useUpdateHost } from './hooks';

interface Values {
  name: string;
  listen_port?: number | null;
}

export function EditHostDialog({ host, open, onClose }: { host: Host; open: boolean; onClose: () => void }) {
  const { t } = useI18n();
  const update = useUpdateHost(host.id);
  const close = () => {
    onClose();
    update.reset();
  };
  const submit = (v: Values) => {
    const body = { name: v.name.trim(), ...(v.listen_port ? { listen_port: v.listen_port } : {}) };
    update.mutate(body, { onSuccess: close });
  };
  return (
    <Modal open={open} title={t('host.edit.title')} onCancel={close} footer={null} destroyOnHidden maskClosable={!update.isPending}>
      <Form<Values>
        layout="vertical"
        requiredMark={false}
        onFinish={submit}
        disabled={update.isPending}
        initialValues={{ name: host.name, listen_port: host.listen_port || null }}
      >
        <FormError error={update.error} />
        <Form.Item
          name="name"
          label={t('host.edit.name')}
          rules={[{ required: true, whitespace: true, message: t('host.edit.nameRequired') }, { max: 64 }]}
        >
          <Input data-testid="host-name" autoFocus maxLength={64} />
        </Form.Item>
        <Form.Item
          name="listen_port"
          label={t('host.edit.listenPort')}
          extra={t('host.edit.listenPortHint')}
          rules={[{ type: 'integer', min: 1024, max: 65535, message: t('host.edit.listenPortInvalid') }]}
        >
          <InputNumber data-testid="host-listen-port" min={1024} max={65535} precision={0} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item style={{ marginBottom: 0, textAlign: 'right' }}>
          <Button onClick={close} style={{ marginRight: 8 }}>
            {t('common.cancel')}
          </Button>
          <Button type="primary" htmlType="submit" loading={update.isPending} data-testid="host-save">
            {t('common.save')}
          </Button>
        </Form.Item>
      </Form>
    </Modal>
  );
}
