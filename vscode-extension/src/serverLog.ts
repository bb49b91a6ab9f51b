/**
 * The server's stderr in the Runway output channel at the right level. runway-lsp logs
 * `2026-01-02 10:11:12,345 LEVEL logger: message` (Python logging, runway_lsp/__main__.py);
 * the channel adds its own time, so the timestamp is dropped. Lines that do not start a record
 * (a traceback) keep the level of the record they belong to. Pure.
 */

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

const RECORD = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[,.]\d+)?\s+(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+(.*)$/;
const LEVELS: Record<string, LogLevel> = { DEBUG: 'debug', INFO: 'info', WARNING: 'warn', WARN: 'warn', ERROR: 'error', CRITICAL: 'error' };

export class ServerLogParser {
  private level: LogLevel = 'info';

  /** The level and the text to log for one stderr line. */
  line(text: string): { level: LogLevel; text: string } {
    const m = RECORD.exec(text);
    if (m) {
      this.level = LEVELS[m[1]];
      return { level: this.level, text: m[2] };
    }
    if (/^(Traceback|\w+Error\b|\w+Exception\b)/.test(text)) return { level: 'error', text };
    return { level: this.level, text };
  }
}
