// The signed-in shell both consoles share: sider (a drawer on phones), a
// sticky header (brand on phones, the console's own items, language,
// sign-out), an optional banner, and the page. Each console passes its nav,
// brand and header items.
import { LogoutOutlined, MenuOutlined } from '@ant-design/icons';
import { Button, Drawer, Grid, Layout, Menu, Skeleton, Space } from 'antd';
import { Suspense, useState, type ReactNode } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { useI18n } from '../i18n';
import { ErrorState } from '../ui/ErrorState';
import { LangSwitch } from './LangSwitch';

export interface ShellNavItem {
  /** The route the item links to, also its menu key. */
  to: string;
  icon: ReactNode;
  /** The message key of its label. */
  label: string;
  testid: string;
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

/** The shell's stand-in while the signed-in user's query has no data: its error (with retry) or a skeleton. */
export function ShellPending({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  if (error) {
    return (
      <div className="hg-content">
        <ErrorState error={error} onRetry={onRetry} />
      </div>
    );
  }
  return (
    <div className="hg-content" aria-busy="true">
      <PageSkeleton />
    </div>
  );
}

function NavMenu({ nav, selected, onNavigate }: { nav: ShellNavItem[]; selected?: string; onNavigate?: () => void }) {
  const { t } = useI18n();
  return (
    <Menu
      theme="dark"
      mode="inline"
      selectedKeys={selected ? [selected] : []}
      onClick={onNavigate}
      items={nav.map((n) => ({
        key: n.to,
        icon: n.icon,
        label: (
          <Link to={n.to} data-testid={n.testid}>
            {t(n.label)}
          </Link>
        ),
      }))}
    />
  );
}

interface ShellProps {
  nav: ShellNavItem[];
  /** The nav item (its `to`) the path belongs to. */
  selected: (pathname: string) => string | undefined;
  /** The brand atop the sider, and the shorter one in the header on phones. */
  brand: ReactNode;
  phoneBrand: ReactNode;
  /** The header's items before the language switch. */
  headerItems: (phone: boolean) => ReactNode;
  signOutTestId: string;
  signOut: { isPending: boolean; mutate: () => void };
  /** Shown under the header (a warning on every page). */
  banner?: ReactNode;
}

export function Shell({ nav, selected, brand, phoneBrand, headerItems, signOutTestId, signOut, banner }: ShellProps) {
  const { t } = useI18n();
  const screens = Grid.useBreakpoint();
  const phone = !screens.lg;
  const [drawer, setDrawer] = useState(false);
  const current = selected(useLocation().pathname);

  return (
    <Layout style={{ minHeight: '100vh' }}>
      {!phone && (
        // The sider stretches to the page's full height (its dark background
        // never stops short of a long page); its contents stay in view.
        <Layout.Sider width={220} className="hg-sider">
          <div className="hg-sider-inner">
            <div style={{ padding: '18px 24px' }}>
              <span className="hg-brand">{brand}</span>
            </div>
            <NavMenu nav={nav} selected={current} />
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
          <NavMenu nav={nav} selected={current} onNavigate={() => setDrawer(false)} />
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
                {phoneBrand}
              </span>
            </>
          )}
          <div style={{ flex: 1 }} />
          <Space size={phone ? 4 : 12} align="center">
            {headerItems(phone)}
            <LangSwitch compact={phone} />
            <Button
              data-testid={signOutTestId}
              icon={<LogoutOutlined />}
              aria-label={t('layout.signOut')}
              loading={signOut.isPending}
              onClick={() => signOut.mutate()}
            >
              {phone ? null : t('layout.signOut')}
            </Button>
          </Space>
        </Layout.Header>
        {banner}
        <Layout.Content className="hg-content">
          <Suspense fallback={<PageSkeleton />}>
            <Outlet />
          </Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
