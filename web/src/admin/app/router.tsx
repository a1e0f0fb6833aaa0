import { lazy, type ComponentType } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { AdminLayout } from './AdminLayout';
import { AdminSignInPage } from '../pages/SignInPage';
import { AdminSessionEndedPage } from '../pages/SessionEndedPage';
import { NotFoundPage } from '../../ui/NotFoundPage';

function AdminNotFoundPage() {
  return <NotFoundPage home="/admin" backKey="admin.notFound.back" />;
}

// Every page behind sign-in is its own lazy chunk. The users and hosts pages
// are FE-FLEET's (src/admin/features/{users,hosts}), lazy-loaded here.
const DashboardPage = lazy(() => import('../pages/DashboardPage'));
const RechargesPage = lazy(() => import('../pages/RechargesPage'));
const PricingPage = lazy(() => import('../pages/PricingPage'));
const VersionsPage = lazy(() => import('../pages/VersionsPage'));
const AuditPage = lazy(() => import('../pages/AuditPage'));
const AdminsPage = lazy(() => import('../pages/AdminsPage'));
// Found by glob, so this branch builds before those folders exist; each page
// found is its own lazy chunk as with import().
const features = import.meta.glob<{ default: ComponentType }>([
  '../features/users/UsersPage.tsx',
  '../features/users/UserPage.tsx',
  '../features/hosts/HostsPage.tsx',
  '../features/hosts/HostPage.tsx',
  '../features/hosts/HostTerminalPage.tsx',
]);
const feature = (path: string) => lazy(features[path] ?? (() => Promise.resolve({ default: AdminNotFoundPage })));
const UsersPage = feature('../features/users/UsersPage.tsx');
const UserPage = feature('../features/users/UserPage.tsx');
const HostsPage = feature('../features/hosts/HostsPage.tsx');
const HostPage = feature('../features/hosts/HostPage.tsx');
const HostTerminalPage = feature('../features/hosts/HostTerminalPage.tsx');

export const adminRouter = createBrowserRouter([
  { path: '/admin/signin', element: <AdminSignInPage /> },
  { path: '/admin/session-ended', element: <AdminSessionEndedPage /> },
  {
    path: '/admin',
    element: <AdminLayout />,
    children: [
      { index: true, element: <DashboardPage /> },
      { path: 'users', element: <UsersPage /> },
      { path: 'users/:id', element: <UserPage /> },
      { path: 'hosts', element: <HostsPage /> },
      { path: 'hosts/:id', element: <HostPage /> },
      { path: 'hosts/:id/terminal', element: <HostTerminalPage /> },
      { path: 'recharges', element: <RechargesPage /> },
      { path: 'pricing', element: <PricingPage /> },
      { path: 'billing-mode', element: <Navigate to="/admin/pricing#billing-mode" replace /> },
      { path: 'versions', element: <VersionsPage /> },
      { path: 'audit', element: <AuditPage /> },
      { path: 'admins', element: <AdminsPage /> },
      { path: '*', element: <AdminNotFoundPage /> },
    ],
  },
  { path: '*', element: <Navigate to="/admin" replace /> },
]);
