import { App, Button, Card, Col, Descriptions, Form, Input, Row, Skeleton } from 'antd';
import { useChangePassword, useMe, useUpdateMe } from '../hooks/session';
import { useFormat, useI18n } from '../i18n';
import { FormError } from '../ui/FormError';
import { PageHeader } from '../ui/PageHeader';

function DisplayNameCard() {
  const { t } = useI18n();
  const fmt = useFormat();
  const { message } = App.useApp();
  const me = useMe();
  const update = useUpdateMe();
  if (!me.data) return <Skeleton active />;
  return (
    <Card title={t('profile.account')} style={{ height: '100%' }}>
      <Descriptions column={1} size="small" style={{ marginBottom: 16 }}>
        <Descriptions.Item label={t('profile.email')}>{me.data.email}</Descriptions.Item>
        <Descriptions.Item label={t('profile.memberSince')}>{fmt.date(me.data.created_at)}</Descriptions.Item>
      </Descriptions>
      <Form<{ display_name: string }>
        layout="vertical"
        requiredMark={false}
        initialValues={{ display_name: me.data.display_name }}
        disabled={update.isPending}
        onFinish={(v) =>
          update.mutate(v.display_name.trim(), { onSuccess: () => void message.success(t('profile.saved')) })
        }
      >
        <FormError error={update.error} />
        <Form.Item
          name="display_name"
          label={t('profile.displayName')}
          rules={[{ required: true, whitespace: true, message: t('profile.displayNameRequired') }]}
        >
          <Input data-testid="profile-display-name" maxLength={128} autoComplete="nickname" />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={update.isPending} data-testid="profile-save">
          {t('profile.save')}
        </Button>
      </Form>
    </Card>
  );
}

interface PasswordValues {
  current_password: string;
  new_password: string;
}

function PasswordCard() {
  const { t } = useI18n();
  const { message } = App.useApp();
  const [form] = Form.useForm<PasswordValues>();
  const change = useChangePassword();
  return (
    <Card title={t('profile.passwordTitle')} style={{ height: '100%' }}>
      <Form<PasswordValues>
        form={form}
        layout="vertical"
        requiredMark={false}
        disabled={change.isPending}
        onFinish={(v) =>
          change.mutate(
            { current_password: v.current_password, new_password: v.new_password },
            {
              onSuccess: () => {
                form.resetFields();
                void message.success(t('profile.passwordChanged'));
              },
            },
          )
        }
      >
        <FormError error={change.error} />
        <Form.Item
          name="current_password"
          label={t('profile.currentPassword')}
          rules={[{ required: true, message: t('auth.passwordRequired') }]}
        >
          <Input.Password data-testid="password-current" autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          name="new_password"
          label={t('profile.newPassword')}
          extra={t('auth.passwordHint')}
          rules={[{ required: true, message: t('auth.passwordRequired') }]}
        >
          <Input.Password data-testid="password-new" autoComplete="new-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={change.isPending} data-testid="password-submit">
          {t('profile.changePassword')}
        </Button>
      </Form>
    </Card>
  );
}

export default function ProfilePage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeader title={t('profile.title')} />
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <DisplayNameCard />
        </Col>
        <Col xs={24} lg={12}>
          <PasswordCard />
        </Col>
      </Row>
    </>
  );
}
