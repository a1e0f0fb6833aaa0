import {
  ApiOutlined,
  CloudServerOutlined,
  LogoutOutlined,
  MenuOutlined,
  UserOutlined,
  WalletOutlined,
} from '@ant-design/icons';
import { Alert, Button, Drawer, Grid, Layout, Menu, Skeleton, Space, Tag, Typography } from 'antd';
import { Suspense, useState } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { useBalance, useLowBalance } from '../hooks/billing';
import { useMe, useSignOut } from '../hooks/session';
import { useFormat, useI18n } from '../i18n';
import { LangSwitch } from './LangSwitch';
import { ErrorState } from '../ui/ErrorState';
import { LinkButton } from '../ui/LinkButton';

const NAV = [
  { key: '/hosts', icon: <CloudServerOutlined />, label: 'nav.hosts', testid: 'nav-hosts' },
  { key: '/api-keys', icon: <ApiOutlined />, label: 'nav.apiKeys', testid: 'nav-api-keys' },
  { key: '/billing', icon: <WalletOutlined />, label: 'nav.billing', testid: 'nav-billing' },
  { key: '/profile', icon: <UserOutlined />, label: 'nav.profile', testid: 'nav-profile' },
];

function NavMenu({ onNavigate }: { onNavigate?: () => void }) {
  const { t } = useI18n();
  const { pathname } = useLocation();
  const selected = NAV.find((n) => pathname === n.key || pathname.startsWith(n.key + '/'))?.key;
  return (
    <Menu
      theme="dark"
      mode="inline"
      selectedKeys={selected ? [selected] : []}
      onClick={onNavigate}
      items={NAV.map((n) => ({
        key: n.key,
        icon: n.icon,
        label: (
          <Link to={n.key} data-testid={n.testid}>
            {t(n.label)}
          </Link>
        ),
      }))}
    />
  );
}

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

/** A page-sized placeholder while a lazy page's code loads. */
export function PageSkeleton() {
  return (
    <div aria-busy="true">
      <Skeleton.Input active style={{ width: 220, marginBottom: 24 }} />
      <Skeleton active paragraph={{ rows: 8 }} />
    </div>
  );
}

/** The signed-in shell: sider (a drawer on phones), header, warnings, and the page. */
export function AppLayout() {
  const { t } = useI18n();
  const screens = Grid.useBreakpoint();
  const phone = !screens.lg;
  const [drawer, setDrawer] = useState(false);
  const me = useMe();
  const signOut = useSignOut();

  if (!me.data && me.isError) {
    return (
      <div className="hg-content">
        <ErrorState error={me.error} onRetry={() => void me.refetch()} />
      </div>
    );
  }
  if (!me.data) {
    return (
      <div className="hg-content" aria-busy="true">
        <PageSkeleton />
      </div>
    );
  }

  return (
    <Layout style={{ minHeight: '100vh' }}>
      {!phone && (
        // The sider stretches to the page's full height (its dark background
        // never stops short of a long page); its contents stay in view.
        <Layout.Sider width={220} className="hg-sider">
          <div className="hg-sider-inner">
            <div style={{ padding: '18px 24px' }}>
              <span className="hg-brand">hostgate</span>
            </div>
            <NavMenu />
          </div>
        </Layout.Sider>
      )}
      {phone && (
        <Drawer
          open={drawer}
          onClose={() => setDrawer(false)}
          placement="left"
          width={240}
          title={t('layout.menu')}
          styles={{ body: { padding: 0, background: '#001529' } }}
        >
          <NavMenu onNavigate={() => setDrawer(false)} />
        </Drawer>
      )}
      <Layout>
        <Layout.Header
          style={{
            background: '#fff',
            padding: phone ? '0 12px' : '0 24px',
            display: 'flex',
            alignItems: 'center',
            gap: 12,
            borderBottom: '1px solid #f0f0f0',
            position: 'sticky',
            top: 0,
            zIndex: 10,
            lineHeight: 'normal',
          }}
        >
          {phone && (
            <>
              <Button type="text" icon={<MenuOutlined />} aria-label={t('layout.openMenu')} onClick={() => setDrawer(true)} />
              <span className="hg-brand" style={{ color: '#001529' }}>
                hostgate
              </span>
            </>
          )}
          <div style={{ flex: 1 }} />
          <Space size={phone ? 4 : 12} align="center">
            <BalanceBadge />
            {!phone && (
              <Typography.Text type="secondary" ellipsis style={{ maxWidth: 200, display: 'block' }}>
                {me.data.display_name || me.data.email}
              </Typography.Text>
            )}
            <LangSwitch compact={phone} />
            <Button
              data-testid="sign-out"
              icon={<LogoutOutlined />}
              aria-label={t('layout.signOut')}
              loading={signOut.isPending}
              onClick={() => signOut.mutate()}
            >
              {phone ? null : t('layout.signOut')}
            </Button>
          </Space>
        </Layout.Header>
        <LowBalanceWarning />
        <Layout.Content className="hg-content">
          <Suspense fallback={<PageSkeleton />}>
            <Outlet />
          </Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
