import { useCallback, useEffect, useRef, useState } from 'react';
import { messageOf } from './api';

/** Whether the tab is visible: nothing polls in a background tab. */
export function useVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState === 'visible');
  useEffect(() => {
    const on = () => setVisible(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', on);
    return () => document.removeEventListener('visibilitychange', on);
  }, []);
  return visible;
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): void;
}

/**
 * Loads `fn` when `key` changes; with `everyMs` (never under 1 s) loads again while the tab is visible, and at once
 * when it comes back.
 */
export function useLoad<T>(fn: () => Promise<T>, key: unknown[], everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const visible = useVisible();
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    let live = true;
    fnRef.current().then(
      (d) => live && (setData(d), setError(undefined), setLoading(false)),
      (e: unknown) => live && (setError(messageOf(e)), setLoading(false)),
    );
    return () => {
      live = false;
    };
  }, [...key, tick]);
  useEffect(() => {
    if (!everyMs || !visible) return;
    const t = setInterval(reload, Math.max(1000, everyMs));
    return () => clearInterval(t);
  }, [everyMs, visible, reload]);
  return { data, error, loading, reload };
}

/** An action's busy flag and error, for buttons and forms. */
export function useAction(): { busy: boolean; error: unknown; run(fn: () => Promise<unknown>): Promise<boolean>; clear(): void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  return {
    busy,
    error,
    clear: () => setError(undefined),
    async run(fn) {
      setBusy(true);
      setError(undefined);
      try {
        await fn();
        return true;
      } catch (e) {
        setError(e);
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}
