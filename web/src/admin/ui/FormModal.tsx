import { Form, Modal, type FormInstance } from 'antd';
import type { ReactNode } from 'react';
import { useI18n } from '../../i18n';
import { FormError } from '../../ui/FormError';

/**
 * A dialog around one form: OK submits it (spinning while `pending`, testid
 * `okTestId`), the hub's refusal shows above the fields, and closing drops
 * the fields' values.
 */
export function FormModal<T extends object>(props: {
  open: boolean;
  title: ReactNode;
  onCancel: () => void;
  okText: string;
  okTestId: string;
  pending: boolean;
  error: unknown;
  form: FormInstance<T>;
  initialValues: Partial<T>;
  onFinish: (v: T) => void;
  children: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <Modal
      open={props.open}
      title={props.title}
      onCancel={props.onCancel}
      okText={props.okText}
      cancelText={t('common.cancel')}
      confirmLoading={props.pending}
      okButtonProps={{ 'data-testid': props.okTestId }}
      onOk={() => props.form.submit()}
      destroyOnHidden
    >
      <FormError error={props.error} />
      <Form<T>
        form={props.form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={props.initialValues}
        onFinish={props.onFinish}
      >
        {props.children}
      </Form>
    </Modal>
  );
}
