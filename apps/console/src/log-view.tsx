import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { parseAnsi } from './ansi';

const ROW = 18;
const OVERSCAN = 20;

/**
 * A log of any length: only the rows in view are in the DOM (100,000 lines scroll like 100), ANSI colours kept. While
 * scrolled to the end it follows new lines; scrolled up, it stays where the reader is.
 */
export function LogView({ lines, version, label, height = 420 }: { lines: readonly string[]; version: number; label: string; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [follow, setFollow] = useState(true);
  useLayoutEffect(() => {
    const el = box.current;
    if (el && follow) {
      el.scrollTop = el.scrollHeight;
      setTop(el.scrollTop);
    }
  }, [version, follow, lines.length]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const on = () => {
      setTop(el.scrollTop);
      setFollow(el.scrollTop + el.clientHeight >= el.scrollHeight - ROW);
    };
    el.addEventListener('scroll', on, { passive: true });
    return () => el.removeEventListener('scroll', on);
  }, []);
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const last = Math.min(lines.length, Math.ceil((top + height) / ROW) + OVERSCAN);
  const rows = [];
  for (let n = first; n < last; n++) {
    rows.push(
      <div key={n} className="log-line" style={{ top: n * ROW }}>
        {parseAnsi(lines[n] ?? '').map((r, k) =>
          r.cls ? (
            <span key={k} className={r.cls}>
              {r.text}
            </span>
          ) : (
            r.text
          ),
        )}
      </div>,
    );
  }
  return (
    <div ref={box} className="log" role="log" aria-live="off" aria-label={label} tabIndex={0} style={{ height }} data-lines={lines.length}>
      <div style={{ height: lines.length * ROW, position: 'relative' }}>{rows}</div>
    </div>
  );
}
