// Placeholder: the terminal page is built here (src/features/terminal/**)
// by its own owner; see web/FOUNDATION.md.
import { useParams } from 'react-router';

export default function TerminalPage() {
  const { id } = useParams();
  return <div data-testid="terminal" data-host-id={id} />;
}
