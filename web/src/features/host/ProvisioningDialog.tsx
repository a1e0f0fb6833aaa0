// The provisioning payload dialog: the host's payload (docs/provisioning.md)
// saved as a JSON file, to hand a machine made from a cloud template as its
// user data, optionally with automatic logon. Like "Re-issue install token",
// it issues new install credentials, which the dialog says before anything
// happens.
import { DownloadOutlined } from '@ant-design/icons';
import { Alert, App, Button, Checkbox, Form, Input, Modal, Typography } from 'antd';
import { useI18n } from '../../i18n';
import { FormError } from '../../ui/FormError';
import { saveBlob } from './download';
import { useProvisioningPayload } from './hooks';
import {
  AUTOLOGON_PASSWORD_MAX,
  AUTOLOGON_PASSWORD_MIN,
  provisioningBody,
  provisioningFileName,
  provisioningFileText,
  type ProvisioningChoice,
} from './provisioning';

export function ProvisioningDialog({ hostId, open, onClose }: { hostId: string; open: boolean; onClose: () => void }) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const fetchPayload = useProvisioningPayload(hostId);
  const [form] = Form.useForm<ProvisioningChoice>();
  const autologon = Form.useWatch('autologon', form) === true;
  const close = () => {
    onClose();
    fetchPayload.reset();
  };
  const submit = (c: ProvisioningChoice) => {
    fetchPayload.mutate(provisioningBody(c), {
      onSuccess: (p) => {
        const name = provisioningFileName(hostId);
        saveBlob(new Blob([provisioningFileText(p)], { type: 'application/json' }), name);
        void message.success(t('host.prov.saved', { file: name }), 8);
        close();
      },
    });
  };

  return (
    <Modal
      open={open}
      title={t('host.prov.title')}
      onCancel={close}
      footer={null}
      destroyOnHidden
      maskClosable={!fetchPayload.isPending}
    >
      <Form<ProvisioningChoice>
        form={form}
        layout="vertical"
        requiredMark={false}
        onFinish={submit}
        disabled={fetchPayload.isPending}
        initialValues={{ autologon: false, username: '', password: '' }}
      >
        <Typography.Paragraph style={{ marginTop: 0 }}>{t('host.prov.intro')}</Typography.Paragraph>
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          message={<span data-testid="provisioning-warning">{t('host.prov.warning')}</span>}
        />
        <FormError error={fetchPayload.error} />
        <Form.Item name="autologon" valuePropName="checked" extra={t('host.prov.autologonHint')} style={{ marginBottom: 12 }}>
          <Checkbox data-testid="provisioning-autologon">{t('host.prov.autologon')}</Checkbox>
        </Form.Item>
        {autologon ? (
          <>
            <Form.Item
              name="username"
              label={t('host.prov.username')}
              rules={[{ max: 64, message: t('host.prov.usernameLong') }]}
            >
              <Input data-testid="provisioning-autologon-user" placeholder="Administrator" maxLength={64} autoComplete="off" />
            </Form.Item>
            <Form.Item
              name="password"
              label={t('host.prov.password')}
              extra={t('host.prov.passwordHint')}
              rules={[
                {
                  validator: (_, v: string | undefined) =>
                    !v || (v.length >= AUTOLOGON_PASSWORD_MIN && v.length <= AUTOLOGON_PASSWORD_MAX)
                      ? Promise.resolve()
                      : Promise.reject(new Error(t('host.prov.passwordLength'))),
                },
              ]}
            >
              <Input.Password
                data-testid="provisioning-autologon-password"
                placeholder={t('host.prov.passwordGenerate')}
                maxLength={AUTOLOGON_PASSWORD_MAX}
                autoComplete="new-password"
              />
            </Form.Item>
          </>
        ) : null}
        <Form.Item style={{ marginBottom: 0, textAlign: 'right' }}>
          <Button onClick={close} style={{ marginRight: 8 }}>
            {t('common.cancel')}
          </Button>
          <Button
            type="primary"
            htmlType="submit"
            icon={<DownloadOutlined />}
            loading={fetchPayload.isPending}
            data-testid="provisioning-download"
          >
            {t('host.prov.download')}
          </Button>
        </Form.Item>
      </Form>
    </Modal>
  );
}
