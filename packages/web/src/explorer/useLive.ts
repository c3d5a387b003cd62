import { useEffect, useRef, useState } from "preact/hooks";
import type { Row } from "./api.ts";
import { subscribeLive, type LiveState } from "./live.ts";

/**
 * Live rows for a page: subscribes once `afterId` is known (the newest row the page loaded, so nothing between the
 * query and the stream is lost), keeps the newest `max` rows first, and holds rows back while paused.
 */
export function useLive(options: { afterId: string | null | undefined; agentId?: string; max?: number; onRow?: (row: Row) => void }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [state, setState] = useState<LiveState>("connecting");
  const [paused, setPaused] = useState(false);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const held = useRef<Row[]>([]);
  const pausedRef = useRef(false);
  const onRow = useRef(options.onRow);
  onRow.current = options.onRow;
  const max = options.max ?? 50;

  const show = (incoming: Row[]) => {
    if (incoming.length === 0) return;
    setRows((old) => [...incoming.slice().reverse(), ...old].slice(0, max));
    setFresh(new Set(incoming.map((r) => r.id)));
  };

  useEffect(() => {
    if (options.afterId === undefined) return;
    setRows([]);
    held.current = [];
    return subscribeLive({
      afterId: options.afterId,
      agentId: options.agentId,
      onState: setState,
      onRow(row) {
        onRow.current?.(row);
        if (pausedRef.current) held.current.push(row);
        else show([row]);
      },
    });
  }, [options.afterId === undefined ? undefined : "ready", options.agentId]);

  const toggle = () => {
    pausedRef.current = !pausedRef.current;
    setPaused(pausedRef.current);
    if (!pausedRef.current) {
      show(held.current);
      held.current = [];
    }
  };
  return { rows, state, paused, toggle, fresh };
}
