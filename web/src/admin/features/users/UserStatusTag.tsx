import { Tag } from 'antd';
import { useI18n } from '../../../i18n';
import { USER_STATUSES } from './spec';

/** A user's status as a coloured word. */
export function UserStatusTag({ status }: { status: string }) {
  const { t } = useI18n();
  const known = (USER_STATUSES as readonly string[]).includes(status);
  return <Tag color={status === 'suspended' ? 'red' : 'green'}>{known ? t(`adminUsers.status.${status}`) : status}</Tag>;
}
