import { App } from 'antd';
import { useCallback, type ReactNode } from 'react';
import { useI18n } from '../i18n';

interface ConfirmOptions {
  title: ReactNode;
  content?: ReactNode;
  /** The OK button's text; "Delete" when left out. */
  okText?: string;
  /** Runs on OK; the dialog stays open (OK spinning) until it settles. A rejection keeps it open. */
  onOk: () => Promise<unknown>;
  /** Runs when the dialog is dismissed without OK. */
  onCancel?: () => void;
}

/**
 * Confirms a destructive action with Modal.confirm. The OK button carries
 * data-testid="confirm-ok"; Escape and Cancel close the dialog. `okType` is
 * the OK button's antd type: the user console's 'danger'; the admin console
 * passes 'primary' (its contract finds the button as
 * `.ant-modal-confirm-btns .ant-btn-primary`, red as it is `danger` too).
 */
export function useConfirm(okType: 'danger' | 'primary' = 'danger') {
  const { modal } = App.useApp();
  const { t } = useI18n();
  return useCallback(
    (o: ConfirmOptions) => {
      modal.confirm({
        title: o.title,
        content: o.content,
        okText: o.okText ?? t('common.delete'),
        cancelText: t('common.cancel'),
        okType,
        okButtonProps: { danger: true, 'data-testid': 'confirm-ok' },
        keyboard: true,
        autoFocusButton: 'cancel',
        onOk: () => o.onOk(),
        onCancel: o.onCancel,
      });
    },
    [modal, t, okType],
  );
}
