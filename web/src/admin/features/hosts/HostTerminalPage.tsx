// /admin/hosts/:id/terminal: the user console's terminal view on the admin
// routes (a ticket from POST /v1/admin/hosts/{id}/terminal/ticket — audited
// as host.terminal_open — then the admin WebSocket). xterm stays in this
// lazy chunk.
import { useCallback } from 'react';
import { useParams } from 'react-router';
import { seg } from '../../api';
import { useAdmin } from '../../session';
import { TerminalView } from '../../../features/terminal/TerminalView';
import { useI18n } from '../../../i18n';
import { Result } from 'antd';
import { ADMIN_HOSTS_BASE, openAdminTicket, useAdminHost } from './hooks';

export default function HostTerminalPage() {
  const { id = '' } = useParams();
  const { can } = useAdmin();
  const { t } = useI18n();
  if (!can('terminal')) return <Result status="403" subTitle={t('adminHosts.terminalForbidden')} />;
  return <AdminTerminal key={id} hostId={id} />;
}

function AdminTerminal({ hostId }: { hostId: string }) {
  const host = useAdminHost(hostId);
  const openTicket = useCallback(() => openAdminTicket(hostId), [hostId]);
  const refetch = host.refetch;
  const onRefused = useCallback(() => void refetch(), [refetch]);
  return (
    <TerminalView
      hostId={hostId}
      hostName={host.data?.host.name}
      hostOnline={host.data?.online}
      backTo={`/admin/hosts/${seg(hostId)}`}
      hostsBase={ADMIN_HOSTS_BASE}
      openTicket={openTicket}
      onRefused={onRefused}
    />
  );
}
