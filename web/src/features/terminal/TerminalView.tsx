// The browser terminal: xterm.js (DOM renderer) with the fit addon, on the
// hub's terminal WebSocket (docs/terminal.md). The protocol's pure parts live
// in ./protocol. The page that shows it (the user console's TerminalPage, the
// admin console's host terminal) says where tickets come from and which
// routes the socket uses.
import { ArrowLeftOutlined, CopyOutlined, ReloadOutlined, SnippetsOutlined } from '@ant-design/icons';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { App, Badge, Button, Flex, Tooltip, Typography } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../api/client';
import type { TicketOut } from '../../api/types';
import { useI18n } from '../../i18n';
import {
  encodeBinary,
  encodeInput,
  endingFor,
  parseControl,
  resizeMessage,
  terminalUrl,
  type Ending,
  type ServerControl,
  type TermState,
} from './protocol';
import './terminal.css';

type View =
  | { state: 'connecting' }
  | { state: 'open' }
  | { state: 'closed' | 'lost'; ending?: Ending; failure?: string };

export interface TerminalViewProps {
  hostId: string;
  /** The host's name for the title, once known. */
  hostName?: string;
  /** Whether the host is online, once known (explains a refused socket). */
  hostOnline?: boolean;
  /** The page the back link goes to. */
  backTo: string;
  /** Where the host routes start: the socket is `${hostsBase}/{id}/terminal/ws`. */
  hostsBase: string;
  /** Issues a single-use ticket for one socket; must be stable (useCallback). */
  openTicket: () => Promise<TicketOut>;
  /** Called when the socket was refused (the host's state may explain it); stable. */
  onRefused?: () => void;
}

export function TerminalView({ hostId, hostName, hostOnline, backTo, hostsBase, openTicket, onRefused }: TerminalViewProps) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const frame = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const wsRef = useRef<WebSocket | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [view, setView] = useState<View>({ state: 'connecting' });
  const [hasSelection, setHasSelection] = useState(false);

  const copySelection = useCallback(async () => {
    const text = termRef.current?.getSelection() ?? '';
    if (!text) return;
    try {
      await navigator.clipboard.writeText(text);
      void message.success(t('terminal.copied'));
    } catch {
      void message.warning(t('terminal.copyFailed'));
    }
    termRef.current?.focus();
  }, [message, t]);

  const pasteClipboard = useCallback(async () => {
    try {
      const text = await navigator.clipboard.readText();
      if (text) termRef.current?.paste(text);
    } catch {
      void message.info(t('terminal.pasteFailed'));
    }
    termRef.current?.focus();
  }, [message, t]);

  // The key handler is set up once; it calls the latest copy function.
  const copyRef = useRef(copySelection);
  useEffect(() => {
    copyRef.current = copySelection;
  }, [copySelection]);

  // The frame fills the window below the header and banners, so the page is
  // exactly the viewport's height; the terminal fills the frame. What sits
  // above it can change after the first layout (the low-balance banner
  // appears once the balance loads, the header wraps): the document's size
  // changes then, so it is observed too, not only the frame's parent.
  useEffect(() => {
    const el = frame.current;
    if (!el) return;
    let last = '';
    const size = () => {
      const top = el.getBoundingClientRect().top + window.scrollY;
      const pad = window.innerWidth < 576 ? 12 : 24;
      const h = `${Math.max(240, Math.floor(document.documentElement.clientHeight - top - pad))}px`;
      if (h !== last) el.style.height = last = h;
    };
    size();
    const ro = new ResizeObserver(size);
    ro.observe(document.documentElement);
    if (el.parentElement) ro.observe(el.parentElement);
    window.addEventListener('resize', size);
    return () => {
      ro.disconnect();
      window.removeEventListener('resize', size);
    };
  }, []);

  // One xterm for the page's life.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const phone = window.innerWidth < 576;
    const term = new Terminal({
      cursorBlink: true,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
      fontSize: phone ? 12 : 14,
      scrollback: 5000,
      theme: { background: '#0d1117', foreground: '#e6edf3', cursor: '#e6edf3', selectionBackground: '#264f78' },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    termRef.current = term;
    fitRef.current = fit;
    try {
      fit.fit();
    } catch {
      // not laid out yet; the observer fits it later
    }

    const send = (chunks: Uint8Array[]) => {
      const ws = wsRef.current;
      if (ws?.readyState !== WebSocket.OPEN) return;
      for (const c of chunks) ws.send(c);
    };
    const subs = [
      term.onData((d) => send(encodeInput(d))),
      term.onBinary((d) => send([encodeBinary(d)])),
      term.onResize(({ cols, rows }) => {
        const ws = wsRef.current;
        if (ws?.readyState === WebSocket.OPEN) ws.send(resizeMessage(cols, rows));
      }),
      term.onSelectionChange(() => setHasSelection(term.hasSelection())),
    ];
    term.attachCustomKeyEventHandler((e) => {
      const mod = (e.ctrlKey || e.metaKey) && e.shiftKey && !e.altKey;
      if (!mod) return true;
      if (e.code === 'KeyC') {
        if (e.type === 'keydown') {
          e.preventDefault();
          void copyRef.current();
        }
        return false;
      }
      // Ctrl/Cmd+Shift+V: let the browser's paste event reach xterm's textarea.
      if (e.code === 'KeyV') return false;
      return true;
    });

    let raf = 0;
    const ro = new ResizeObserver(() => {
      cancelAnimationFrame(raf);
      raf = requestAnimationFrame(() => {
        try {
          fit.fit();
        } catch {
          // hidden
        }
      });
    });
    ro.observe(el);
    return () => {
      cancelAnimationFrame(raf);
      ro.disconnect();
      subs.forEach((s) => s.dispose());
      term.dispose();
      termRef.current = null;
      fitRef.current = null;
    };
  }, []);

  // One session per attempt: a new ticket, a new socket.
  useEffect(() => {
    let cancelled = false;
    let ws: WebSocket | null = null;
    const term = termRef.current;
    void (async () => {
      let ticket: TicketOut;
      try {
        ticket = await openTicket();
      } catch (err) {
        if (!cancelled) setView({ state: 'lost', failure: errorMessage(err) });
        return;
      }
      if (cancelled || !term) return;
      try {
        fitRef.current?.fit();
      } catch {
        // keep the current size
      }
      let opened = false;
      let last: ServerControl | null = null;
      ws = new WebSocket(terminalUrl(window.location, hostId, ticket.ticket, term.cols, term.rows, hostsBase));
      ws.binaryType = 'arraybuffer';
      wsRef.current = ws;
      ws.onopen = () => {
        opened = true;
        if (cancelled) return;
        setView({ state: 'open' });
        term.focus();
      };
      ws.onmessage = (ev: MessageEvent<ArrayBuffer | string>) => {
        if (typeof ev.data === 'string') {
          const c = parseControl(ev.data);
          if (c.type !== 'unknown') last = c;
        } else {
          term.write(new Uint8Array(ev.data));
        }
      };
      ws.onclose = (ev) => {
        if (wsRef.current === ws) wsRef.current = null;
        if (cancelled) return;
        const ending = endingFor(ev.code, opened, last);
        setView({ state: ending.state, ending });
        // A refused upgrade tells the page nothing; the host's state may explain it.
        if (ending.kind === 'refused') onRefused?.();
      };
    })();
    return () => {
      cancelled = true;
      if (ws) {
        ws.onclose = null;
        ws.close(1000);
        if (wsRef.current === ws) wsRef.current = null;
      }
    };
  }, [hostId, attempt, openTicket, hostsBase, onRefused]);

  const reconnect = () => {
    termRef.current?.reset();
    setView({ state: 'connecting' });
    setAttempt((a) => a + 1);
  };

  const state: TermState = view.state;
  const name = hostName;
  return (
    <Flex vertical gap={8} ref={frame} className="hg-term-frame">
      <Flex justify="space-between" align="center" wrap="wrap" gap={8}>
        <Flex align="center" gap={12} wrap="wrap" style={{ minWidth: 0 }}>
          <Link to={backTo}>
            <ArrowLeftOutlined /> {t('terminal.back')}
          </Link>
          <Typography.Title level={4} style={{ margin: 0, wordBreak: 'break-word' }}>
            {name ? t('terminal.titleFor', { name }) : t('terminal.title')}
          </Typography.Title>
        </Flex>
        <Flex align="center" gap={8} wrap="wrap">
          <span data-testid="terminal-state" data-state={state} role="status" aria-live="polite">
            <Badge status={BADGE[state]} text={stateText(t, view, hostOnline)} />
          </span>
          <Tooltip title={t('terminal.copyHint')}>
            <Button
              icon={<CopyOutlined />}
              aria-label={t('terminal.copy')}
              disabled={!hasSelection}
              onClick={() => void copySelection()}
            />
          </Tooltip>
          <Tooltip title={t('terminal.pasteHint')}>
            <Button
              icon={<SnippetsOutlined />}
              aria-label={t('terminal.paste')}
              disabled={state !== 'open'}
              onClick={() => void pasteClipboard()}
            />
          </Tooltip>
          {state === 'closed' || state === 'lost' ? (
            <Button type="primary" icon={<ReloadOutlined />} data-testid="terminal-reconnect" onClick={reconnect}>
              {t('terminal.reconnect')}
            </Button>
          ) : null}
        </Flex>
      </Flex>
      <div className="hg-term-box">
        <div
          ref={box}
          data-testid="terminal"
          data-host-id={hostId}
          className="hg-term"
          aria-label={t('terminal.label')}
        />
      </div>
    </Flex>
  );
}

const BADGE: Record<TermState, 'processing' | 'success' | 'default' | 'error'> = {
  connecting: 'processing',
  open: 'success',
  closed: 'default',
  lost: 'error',
};

function stateText(
  t: (k: string, v?: Record<string, string | number>) => string,
  v: View,
  hostOnline: boolean | undefined,
): string {
  if (v.state === 'connecting') return t('terminal.state.connecting');
  if (v.state === 'open') return t('terminal.state.open');
  if (v.failure) return t('terminal.state.failed', { message: v.failure });
  const e = v.ending;
  if (!e) return v.state === 'closed' ? t('terminal.state.ended') : t('terminal.state.lost');
  switch (e.kind) {
    case 'exit':
      if (e.exitCode !== undefined) return t('terminal.state.exited', { code: e.exitCode });
      return t('terminal.state.ended');
    case 'ended':
      return t('terminal.state.endedReason', { reason: e.reason });
    case 'error':
      return t('terminal.state.error', { message: e.message || e.error });
    case 'refused':
      return hostOnline === false ? t('terminal.state.offline') : t('terminal.state.refused');
    case 'dropped':
      return t('terminal.state.dropped', { code: e.code });
  }
}
