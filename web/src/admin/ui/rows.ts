import type { HTMLAttributes } from 'react';

/** A list row's attributes for the browser tests: data-testid `<name>-row` and data-id. */
export const rowProps = (name: string, id: string): HTMLAttributes<HTMLElement> =>
  ({ 'data-testid': `${name}-row`, 'data-id': id }) as HTMLAttributes<HTMLElement>;
