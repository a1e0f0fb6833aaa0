import { ApiOutlined, CloudServerOutlined, FieldTimeOutlined, ThunderboltOutlined, UserOutlined, WalletOutlined } from '@ant-design/icons';
import { Alert, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { useBalance, useLowBalance } from '../hooks/billing';
import { useMe, useSignOut } from '../hooks/session';
import { useFormat, useI18n } from '../i18n';
import { LinkButton } from '../ui/LinkButton';
import { Shell, ShellPending, type ShellNavItem } from './Shell';

const NAV: ShellNavItem[] = [
  { to: '/hosts', icon: <CloudServerOutlined />, label: 'nav.hosts', testid: 'nav-hosts' },
  { to: '/jobs', icon: <ThunderboltOutlined />, label: 'nav.jobs', testid: 'nav-jobs' },
  { to: '/schedules', icon: <FieldTimeOutlined />, label: 'nav.schedules', testid: 'nav-schedules' },
  { to: '/api-keys', icon: <ApiOutlined />, label: 'nav.apiKeys', testid: 'nav-api-keys' },
  { to: '/billing', icon: <WalletOutlined />, label: 'nav.billing', testid: 'nav-billing' },
  { to: '/profile', icon: <UserOutlined />, label: 'nav.profile', testid: 'nav-profile' },
];

function BalanceBadge() {
  const { t } = useI18n();
  const fmt = useFormat();
  const { data } = useBalance();
  const low = useLowBalance();
  return (
    <Link to="/billing" aria-label={t('layout.balanceLink')}>
      <Tag
        data-testid="balance-badge"
        color={low ? 'red' : 'blue'}
        style={{ margin: 0, fontSize: 13, padding: '2px 8px' }}
      >
        <WalletOutlined /> {data ? t('layout.balance', { tokens: fmt.tokens(data.tokens) }) : '…'}
      </Tag>
    </Link>
  );
}

function LowBalanceWarning() {
  const { t } = useI18n();
  const low = useLowBalance();
  if (!low) return null;
  return (
    <Alert
      data-testid="low-balance-warning"
      type="warning"
      showIcon
      banner
      message={t('layout.lowBalance')}
      action={
        <LinkButton to="/billing" size="small">
          {t('layout.recharge')}
        </LinkButton>
      }
    />
  );
}

/** The signed-in shell: sider (a drawer on phones), header, warnings, and the page. */
export function AppLayout() {
  const me = useMe();
  const signOut = useSignOut();

  if (!me.data) return <ShellPending error={me.isError ? me.error : null} onRetry={() => void me.refetch()} />;
  const who = me.data.display_name || me.data.email;

  return (
    <Shell
      nav={NAV}
      selected={(pathname) => NAV.find((n) => pathname === n.to || pathname.startsWith(n.to + '/'))?.to}
      brand="hostgate"
      phoneBrand="hostgate"
      headerItems={(phone) => (
        <>
          <BalanceBadge />
          {!phone && (
            <Typography.Text type="secondary" ellipsis style={{ maxWidth: 200, display: 'block' }}>
              {who}
            </Typography.Text>
          )}
        </>
      )}
      signOutTestId="sign-out"
      signOut={signOut}
      banner={<LowBalanceWarning />}
    />
  );
}
