import { Button, type ButtonProps } from 'antd';
import type { MouseEvent } from 'react';
import { useHref, useLinkClickHandler } from 'react-router';

/**
 * A client-side link that looks like an antd button: one <a> element (not a
 * button inside a link), so keyboards and screen readers see one control.
 */
export function LinkButton({ to, ...props }: Omit<ButtonProps, 'href' | 'onClick'> & { to: string }) {
  const href = useHref(to);
  const onClick = useLinkClickHandler<HTMLAnchorElement>(to);
  return (
    <Button
      {...props}
      href={href}
      onClick={(e: MouseEvent<HTMLElement>) => onClick(e as MouseEvent<HTMLAnchorElement>)}
    />
  );
}
