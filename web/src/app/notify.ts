// A bridge to antd's message API (which needs the <App> context) for code
// outside components, such as the query client's global mutation handler.
import type { MessageInstance } from 'antd/es/message/interface';

let instance: MessageInstance | null = null;

export function setMessageInstance(m: MessageInstance | null): void {
  instance = m;
}

/** Shows an error toast; used for failed mutations that have no form to show it in. */
export function notifyError(text: string): void {
  void instance?.error({ content: text, duration: 6 });
}
