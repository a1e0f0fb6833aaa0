import { Button, Form, Input, InputNumber, Modal } from 'antd';
import { useNavigate } from 'react-router';
import { useCreateHost } from '../hooks/hosts';
import { useI18n } from '../i18n';
import { FormError } from '../ui/FormError';

interface Values {
  name: string;
  listen_port?: number | null;
}

/**
 * The create-host dialog. The host is created with its first install
 * credentials (useCreateHost); on success it opens the host page, handing it
 * the raw create answer as `location.state.created` so the page can show the
 * credentials once (FOUNDATION.md).
 */
export function CreateHostDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useI18n();
  const [form] = Form.useForm<Values>();
  const create = useCreateHost();
  const navigate = useNavigate();

  const close = () => {
    onClose();
    create.reset();
  };

  const submit = (v: Values) => {
    const body = { name: v.name.trim(), ...(v.listen_port ? { listen_port: v.listen_port } : {}) };
    create.mutate(body, {
      onSuccess: (created) => {
        onClose();
        form.resetFields();
        void navigate(`/hosts/${encodeURIComponent(created.id)}`, { state: { created } });
      },
    });
  };

  return (
    <Modal
      open={open}
      title={t('hosts.createTitle')}
      onCancel={close}
      destroyOnHidden
      footer={null}
      maskClosable={!create.isPending}
    >
      <Form<Values> form={form} layout="vertical" requiredMark={false} onFinish={submit} disabled={create.isPending}>
        <FormError error={create.error} />
        <Form.Item
          name="name"
          label={t('hosts.name')}
          rules={[{ required: true, whitespace: true, message: t('hosts.nameRequired') }, { max: 128 }]}
        >
          <Input data-testid="host-name" autoFocus maxLength={128} />
        </Form.Item>
        <Form.Item
          name="listen_port"
          label={t('hosts.listenPort')}
          extra={t('hosts.listenPortHint')}
          rules={[{ type: 'integer', min: 1, max: 65535, message: t('hosts.listenPortInvalid') }]}
        >
          <InputNumber data-testid="host-listen-port" min={1} max={65535} precision={0} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item style={{ marginBottom: 0, textAlign: 'right' }}>
          <Button onClick={close} style={{ marginRight: 8 }}>
            {t('common.cancel')}
          </Button>
          <Button type="primary" htmlType="submit" loading={create.isPending} data-testid="host-create-submit">
            {t('hosts.createSubmit')}
          </Button>
        </Form.Item>
      </Form>
    </Modal>
  );
}
