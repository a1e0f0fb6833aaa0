// The browser terminal (/hosts/:id/terminal) of the user console: the host's
// name and state from /v1/user/hosts/{id}, the terminal itself in
// ./TerminalView (shared with the admin console's terminal page).
import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useParams } from 'react-router';
import { api, seg } from '../../api/client';
import { qk } from '../../api/queryKeys';
import type { HostWithState, TicketOut } from '../../api/types';
import { USER_HOSTS_BASE } from './protocol';
import { TerminalView } from './TerminalView';

export default function TerminalPage() {
  const { id = '' } = useParams();
  return <UserTerminal key={id} hostId={id} />;
}

function UserTerminal({ hostId }: { hostId: string }) {
  const host = useQuery({
    queryKey: qk.hosts.detail(hostId),
    queryFn: ({ signal }) => api.get<HostWithState>(`/v1/user/hosts/${seg(hostId)}`, undefined, signal),
  });
  const openTicket = useCallback(
    () => api.post<TicketOut>(`/v1/user/hosts/${seg(hostId)}/terminal/ticket`),
    [hostId],
  );
  const refetch = host.refetch;
  const onRefused = useCallback(() => void refetch(), [refetch]);
  return (
    <TerminalView
      hostId={hostId}
      hostName={host.data?.host.name}
      hostOnline={host.data?.online}
      backTo={`/hosts/${seg(hostId)}`}
      hostsBase={USER_HOSTS_BASE}
      openTicket={openTicket}
      onRefused={onRefused}
    />
  );
}
