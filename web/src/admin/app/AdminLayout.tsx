import { LogoutOutlined, MenuOutlined, SafetyCertificateOutlined } from '@ant-design/icons';
import { Button, Drawer, Grid, Layout, Menu, Skeleton, Space, Tag, Typography } from 'antd';
import { Suspense, useState } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { LangSwitch } from '../../app/LangSwitch';
import { useI18n } from '../../i18n';
import { ErrorState } from '../../ui/ErrorState';
import { useAdminMe, useAdminSignOut } from '../hooks';
import { NAV, navFor } from './nav';
import { AdminContext } from '../session';
import type { Role } from '../types';

function activeSection(pathname: string): string | undefined {
  const hit = NAV.filter((n) => n.to !== '/admin').find((n) => pathname === n.to || pathname.startsWith(n.to + '/'));
  if (hit) return hit.to;
  return pathname === '/admin' || pathname === '/admin/' ? '/admin' : undefined;
}

function NavMenu({ role, onNavigate }: { role: Role; onNavigate?: () => void }) {
  const { t } = useI18n();
  const { pathname } = useLocation();
  const selected = activeSection(pathname);
  return (
    <Menu
      theme="dark"
      mode="inline"
      selectedKeys={selected ? [selected] : []}
      onClick={onNavigate}
      items={navFor(role).map((n) => ({
        key: n.to,
        icon: n.icon,
        label: (
          <Link to={n.to} data-testid={`admin-nav-${n.section}`}>
            {t(`admin.nav.${n.section}`)}
          </Link>
        ),
      }))}
    />
  );
}

/** A page-sized placeholder while a lazy page's code loads. */
function PageSkeleton() {
  return (
    <div aria-busy="true">
      <Skeleton.Input active style={{ width: 220, marginBottom: 24 }} />
      <Skeleton active paragraph={{ rows: 8 }} />
    </div>
  );
}

const ROLE_COLOR: Record<Role, string> = { owner: 'gold', operator: 'blue', finance: 'green', viewer: 'default' };

/** The signed-in admin shell: sider (a drawer on phones), header with who, language and sign-out, and the page. */
export function AdminLayout() {
  const { t } = useI18n();
  const screens = Grid.useBreakpoint();
  const phone = !screens.lg;
  const [drawer, setDrawer] = useState(false);
  const me = useAdminMe();
  const signOut = useAdminSignOut();

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
  const admin = me.data;

  return (
    <AdminContext.Provider value={admin}>
      <Layout style={{ minHeight: '100vh' }}>
        {!phone && (
          <Layout.Sider width={220} className="hg-sider">
            <div className="hg-sider-inner">
              <div style={{ padding: '18px 24px' }}>
                <span className="hg-brand">
                  hostgate <SafetyCertificateOutlined /> <span style={{ fontWeight: 400 }}>{t('admin.brand')}</span>
                </span>
              </div>
              <NavMenu role={admin.role} />
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
            <NavMenu role={admin.role} onNavigate={() => setDrawer(false)} />
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
                  {t('admin.brand')}
                </span>
              </>
            )}
            <div style={{ flex: 1 }} />
            <Space size={phone ? 4 : 12} align="center">
              <span data-testid="admin-whoami" data-role={admin.role} style={{ display: 'inline-flex', gap: 6, alignItems: 'center' }}>
                <Typography.Text ellipsis style={{ maxWidth: phone ? 90 : 200 }}>
                  {admin.username}
                </Typography.Text>
                <Tag color={ROLE_COLOR[admin.role] ?? 'default'} style={{ margin: 0 }}>
                  {t(`admin.role.${admin.role}`)}
                </Tag>
              </span>
              <LangSwitch compact={phone} />
              <Button
                data-testid="admin-signout"
                icon={<LogoutOutlined />}
                aria-label={t('layout.signOut')}
                loading={signOut.isPending}
                onClick={() => signOut.mutate()}
              >
                {phone ? null : t('layout.signOut')}
              </Button>
            </Space>
          </Layout.Header>
          <Layout.Content className="hg-content">
            <Suspense fallback={<PageSkeleton />}>
              <Outlet />
            </Suspense>
          </Layout.Content>
        </Layout>
      </Layout>
    </AdminContext.Provider>
  );
}
