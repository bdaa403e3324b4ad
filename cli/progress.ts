// Status output on stderr for long-running CLI commands: on a terminal, one line redrawn in place
// (at most ~10 times a second); otherwise plain lines, one per call of line(), for logs and CI.

export interface StatusStream {
  write(text: string): boolean;
  isTTY?: boolean;
  columns?: number;
}

const REDRAW_MS = 100;

export class StatusLine {
  readonly tty: boolean;
  private drawn = false;
  private lastDraw = 0;
  private pending: string | undefined;

  constructor(
    private readonly stream: StatusStream,
    tty = stream.isTTY === true,
  ) {
    this.tty = tty;
  }

  /**
   * Shows the current status. On a terminal the line is redrawn (throttled unless `force`);
   * otherwise it is printed only when `force` is set (the caller decides what is worth a line).
   */
  update(text: string, force = false): void {
    if (!this.tty) {
      if (force) this.stream.write(`${text}\n`);
      return;
    }
    const now = Date.now();
    if (!force && this.drawn && now - this.lastDraw < REDRAW_MS) {
      this.pending = text;
      return;
    }
    this.draw(text, now);
  }

  /** Prints a line of its own (above the status line on a terminal). */
  log(text: string): void {
    if (this.tty && this.drawn) this.stream.write('\r\x1b[2K');
    this.stream.write(`${text}\n`);
    this.drawn = false;
  }

  /** Draws the last status (or `text`) and ends the line. */
  finish(text?: string): void {
    const last = text ?? this.pending;
    this.pending = undefined;
    if (!this.tty) {
      if (text !== undefined) this.stream.write(`${text}\n`);
      return;
    }
    if (last !== undefined) this.draw(last, Date.now());
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }

  private draw(text: string, now: number): void {
    const width = Math.max(20, (this.stream.columns || 80) - 1);
    const shown = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    this.stream.write(`\r\x1b[2K${shown}`);
    this.drawn = true;
    this.lastDraw = now;
    this.pending = undefined;
  }
}

/** `[#########-----------]` for done out of total. */
export function bar(done: number, total: number, width = 24): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  const full = Math.round(ratio * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}]`;
}

export function percent(done: number, total: number): string {
  const p = total > 0 ? Math.floor((done / total) * 100) : 100;
  return `${String(p).padStart(3)}%`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Items per second over an elapsed time, as text (`1,234/s`). */
export function rate(items: number, elapsedMs: number): string {
  if (elapsedMs <= 0) return '-/s';
  return `${count(Math.round((items * 1000) / elapsedMs))}/s`;
}
