import { App } from 'antd';
import { useCallback, type ReactNode } from 'react';
import { useI18n } from '../../i18n';

interface ConfirmOptions {
  title: ReactNode;
  content?: ReactNode;
  okText: string;
  /** Runs on OK; the dialog stays open (OK spinning) until it settles. A rejection keeps it open. */
  onOk: () => Promise<unknown>;
  /** Runs when the dialog is dismissed without OK. */
  onCancel?: () => void;
}

/**
 * Confirms an admin's destructive action with Modal.confirm. As the contract
 * says, the OK button is antd's primary one (red for danger), so tests find
 * it as `.ant-modal-confirm-btns .ant-btn-primary`; it also carries
 * data-testid="confirm-ok". Escape and Cancel close the dialog.
 */
export function useAdminConfirm() {
  const { modal } = App.useApp();
  const { t } = useI18n();
  return useCallback(
    (o: ConfirmOptions) => {
      modal.confirm({
        title: o.title,
        content: o.content,
        okText: o.okText,
        cancelText: t('common.cancel'),
        okType: 'primary',
        okButtonProps: { danger: true, 'data-testid': 'confirm-ok' },
        keyboard: true,
        autoFocusButton: 'cancel',
        onOk: () => o.onOk(),
        onCancel: o.onCancel,
      });
    },
    [modal, t],
  );
}
