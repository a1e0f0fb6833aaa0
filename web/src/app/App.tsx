import { ConsoleRoot } from './ConsoleRoot';
import { queryClient } from './queryClient';
import { router } from './router';

export function App() {
  return <ConsoleRoot client={queryClient} router={router} />;
}
