import { SafetyCertificateOutlined } from '@ant-design/icons';
import { Tag, Typography } from 'antd';
import { Shell, ShellPending, type ShellNavItem } from '../../app/Shell';
import { useI18n } from '../../i18n';
import { useAdminMe, useAdminSignOut } from '../hooks';
import { NAV, navFor } from './nav';
import { AdminContext } from '../session';
import type { Role } from '../types';

function activeSection(pathname: string): string | undefined {
  const hit = NAV.filter((n) => n.to !== '/admin').find((n) => pathname === n.to || pathname.startsWith(n.to + '/'));
  if (hit) return hit.to;
  return pathname === '/admin' || pathname === '/admin/' ? '/admin' : undefined;
}

const ROLE_COLOR: Record<Role, string> = { owner: 'gold', operator: 'blue', finance: 'green', viewer: 'default' };

/** The signed-in admin shell: sider (a drawer on phones), header with who, language and sign-out, and the page. */
export function AdminLayout() {
  const { t } = useI18n();
  const me = useAdminMe();
  const signOut = useAdminSignOut();

  if (!me.data) return <ShellPending error={me.isError ? me.error : null} onRetry={() => void me.refetch()} />;
  const admin = me.data;
  const nav: ShellNavItem[] = navFor(admin.role).map((n) => ({
    to: n.to,
    icon: n.icon,
    label: `admin.nav.${n.section}`,
    testid: `admin-nav-${n.section}`,
  }));

  return (
    <AdminContext.Provider value={admin}>
      <Shell
        nav={nav}
        selected={activeSection}
        brand={
          <>
            hostgate <SafetyCertificateOutlined /> <span style={{ fontWeight: 400 }}>{t('admin.brand')}</span>
          </>
        }
        phoneBrand={t('admin.brand')}
        headerItems={(phone) => (
          <span data-testid="admin-whoami" data-role={admin.role} style={{ display: 'inline-flex', gap: 6, alignItems: 'center' }}>
            <Typography.Text ellipsis style={{ maxWidth: phone ? 90 : 200 }}>
              {admin.username}
            </Typography.Text>
            <Tag color={ROLE_COLOR[admin.role] ?? 'default'} style={{ margin: 0 }}>
              {t(`admin.role.${admin.role}`)}
            </Tag>
          </span>
        )}
        signOutTestId="admin-signout"
        signOut={signOut}
      />
    </AdminContext.Provider>
  );
}
