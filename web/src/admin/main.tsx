import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AdminApp } from './app/App';
import { installAdminSessionHandler } from './app/session';
import '../styles.css';

installAdminSessionHandler();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AdminApp />
  </StrictMode>,
);
