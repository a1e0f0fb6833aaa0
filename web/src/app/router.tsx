import { lazy } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { AppLayout } from './AppLayout';
import { SignInPage } from '../pages/SignInPage';
import { SignUpPage } from '../pages/SignUpPage';
import { SessionEndedPage } from '../pages/SessionEndedPage';
import { NotFoundPage } from '../ui/NotFoundPage';

// Every page behind sign-in is its own lazy chunk, so the first page loads
// only what it shows (the bundle budget counts the entry chunk and its
// static imports). The host and terminal pages pull in uPlot and xterm.
const HostsPage = lazy(() => import('../pages/HostsPage'));
const ApiKeysPage = lazy(() => import('../pages/ApiKeysPage'));
const BillingPage = lazy(() => import('../pages/BillingPage'));
const ProfilePage = lazy(() => import('../pages/ProfilePage'));
const HostPage = lazy(() => import('../features/host/HostPage'));
const TerminalPage = lazy(() => import('../features/terminal/TerminalPage'));
const JobsPage = lazy(() => import('../features/jobs/JobsPage'));
const NewJobPage = lazy(() => import('../features/jobs/NewJobPage'));
const JobPage = lazy(() => import('../features/jobs/JobPage'));
const SchedulesPage = lazy(() => import('../features/schedules/SchedulesPage'));
const NewSchedulePage = lazy(() => import('../features/schedules/NewSchedulePage'));

export const router = createBrowserRouter([
  { path: '/signin', element: <SignInPage /> },
  { path: '/signup', element: <SignUpPage /> },
  { path: '/session-ended', element: <SessionEndedPage /> },
  {
    element: <AppLayout />,
    children: [
      { index: true, element: <Navigate to="/hosts" replace /> },
      { path: 'hosts', element: <HostsPage /> },
      { path: 'hosts/:id', element: <HostPage /> },
      { path: 'hosts/:id/terminal', element: <TerminalPage /> },
      { path: 'jobs', element: <JobsPage /> },
      { path: 'jobs/new', element: <NewJobPage /> },
      { path: 'jobs/:id', element: <JobPage /> },
      { path: 'schedules', element: <SchedulesPage /> },
      { path: 'schedules/new', element: <NewSchedulePage /> },
      { path: 'api-keys', element: <ApiKeysPage /> },
      { path: 'billing', element: <BillingPage /> },
      { path: 'profile', element: <ProfilePage /> },
      { path: '*', element: <NotFoundPage home="/hosts" backKey="notFound.back" /> },
    ],
  },
]);
