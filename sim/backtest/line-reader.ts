/**
 * Lines of a file as byte ranges: the JSONL readers' splitter (data-format.ts in this thread,
 * jsonl-worker.ts in a worker). It reads 4 MB blocks into one Buffer and splits on newline
 * bytes, with no string per line; a line longer than the buffer grows it.
 *
 * Contract: each `next()` answers true with the line in `buffer[start, stop)` (without its
 * newline; the last line may lack one) and `lineNo` counting every line from 1, empty ones
 * included; false at the end of the file, which it then closes. The range is valid until the
 * next call.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const BLOCK = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

export class LineReader {
  private readonly fd: number;
  buffer = Buffer.allocUnsafe(BLOCK);
  /** The current line: buffer[start, stop). */
  start = 0;
  stop = 0;
  lineNo = 0;
  /** Unread bytes are buffer[pos, end). */
  private pos = 0;
  private end = 0;
  private eof = false;
  private done = false;
  /** Bytes read so far, for progress. */
  bytesRead = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'r');
  }

  next(): boolean {
    for (;;) {
      let nl = this.buffer.indexOf(NEWLINE, this.pos);
      if (nl < 0 || nl >= this.end) {
        if (this.fill()) continue;
        // The last line, without a newline.
        if (this.pos >= this.end) return false;
        nl = this.end;
      }
      this.start = this.pos;
      this.stop = nl;
      this.pos = nl + 1;
      this.lineNo++;
      return true;
    }
  }

  /** Reads more bytes behind the unread ones; false at the end of the file. */
  private fill(): boolean {
    if (this.eof || this.done) return false;
    const left = this.end - this.pos;
    if (left > 0 && this.pos === 0 && this.end === this.buffer.length) {
      // One line longer than the buffer: grow it.
      const bigger = Buffer.allocUnsafe(this.buffer.length * 2);
      this.buffer.copy(bigger, 0, 0, this.end);
      this.buffer = bigger;
    } else if (this.pos > 0) {
      this.buffer.copy(this.buffer, 0, this.pos, this.end);
    }
    this.pos = 0;
    this.end = left;
    const n = readSync(this.fd, this.buffer, left, this.buffer.length - left, null);
    this.bytesRead += n;
    if (n === 0) {
      this.eof = true;
      this.closeFile();
      return false;
    }
    this.end += n;
    return true;
  }

  /** Stops reading: no more lines, the file closed (again: nothing). */
  close(): void {
    this.pos = this.end;
    this.closeFile();
  }

  private closeFile(): void {
    if (this.done) return;
    this.done = true;
    closeSync(this.fd);
  }
}
