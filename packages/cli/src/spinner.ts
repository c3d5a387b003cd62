import type { Output } from "./context.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface Spinner {
  /** Starts redrawing `text()` (on a TTY every 100 ms; otherwise printed once). */
  start(text: () => string): void;
  /** A short note shown next to the text for a few seconds (a line of its own when not a TTY). */
  flash(message: string): void;
  /** Clears the line; safe to call twice. */
  stop(): void;
}

/** A one-line spinner with a live text on stderr; plain lines when stderr is not a terminal; silent when disabled. */
export function createSpinner(stream: Output, enabled: boolean): Spinner {
  let timer: ReturnType<typeof setInterval> | undefined;
  let frame = 0;
  let extra = "";
  let extraUntil = 0;
  const tty = enabled && stream.isTTY === true;
  return {
    start(text) {
      if (!enabled) return;
      if (!tty) {
        stream.write(`${text()}\n`);
        return;
      }
      const draw = () => {
        const suffix = Date.now() < extraUntil ? `  ${extra}` : "";
        let line = `${FRAMES[frame++ % FRAMES.length]} ${text()}${suffix}`;
        const width = stream.columns ?? 0;
        if (width > 10 && line.length > width - 1) line = `${line.slice(0, width - 2)}…`;
        stream.write(`\r\x1b[2K${line}`);
      };
      draw();
      timer = setInterval(draw, 100);
      timer.unref?.();
    },
    flash(message) {
      if (!enabled) return;
      if (!tty) return void stream.write(`${message}\n`);
      extra = message;
      extraUntil = Date.now() + 5_000;
    },
    stop() {
      if (timer === undefined) return;
      clearInterval(timer);
      timer = undefined;
      stream.write("\r\x1b[2K");
    },
  };
}
