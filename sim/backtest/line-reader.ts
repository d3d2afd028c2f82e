/**
 * Lines of a file as byte ranges: the JSONL readers' splitter (data-format.ts in this thread,
 * jsonl-worker.ts in a worker). It reads 4 MB blocks into one Buffer and splits on newline
 * bytes, with no string per line; a line longer than the buffer grows it.
 *
 * Contract: each `next()` answers true with the line in `buffer[start, stop)` (without its
 * newline; the last line may lack one) and `lineNo` counting every line from 1, empty ones
 * included; false at the end of the file, which it then closes. The range is valid until the
 * next call. With a byte range [from, to), only the lines that start in it are answered (a
 * line starts at 0 or after a newline), the last one read to its end past `to`: consecutive
 * ranges split a file's lines between them, each line to exactly one range.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const BLOCK = 4 * 1024 * 1024;
const NEWLINE = 0x0a;
/** Bytes read at a time past the end of a range. */
const TAIL = 64 * 1024;

export class LineReader {
  private readonly fd: number;
  buffer: Buffer;
  /** The current line: buffer[start, stop). */
  start = 0;
  stop = 0;
  lineNo = 0;
  /** Unread bytes are buffer[pos, end). */
  private pos = 0;
  private end = 0;
  private eof = false;
  private done = false;
  /** File offset of buffer[0], and of the next read. */
  private base = 0;
  private offset = 0;
  /** Bytes read so far, for progress. */
  bytesRead = 0;

  /** `buffer`: one to reuse (a previous reader's, once that one is done). */
  constructor(
    path: string,
    from = 0,
    private readonly to = Infinity,
    buffer?: Buffer,
  ) {
    this.buffer = buffer ?? Buffer.allocUnsafe(BLOCK);
    this.fd = openSync(path, 'r');
    if (from > 0) {
      // The byte before `from`: a line starts at `from` only after a newline.
      this.base = this.offset = from - 1;
      if (!this.skipToNewline()) this.close();
    }
  }

  /** Drops the bytes up to and including the first newline; false when there is none. */
  private skipToNewline(): boolean {
    for (;;) {
      const nl = this.buffer.indexOf(NEWLINE, this.pos);
      if (nl >= 0 && nl < this.end) {
        this.pos = nl + 1;
        return true;
      }
      this.pos = this.end;
      if (!this.fill()) return false;
    }
  }

  next(): boolean {
    if (this.base + this.pos >= this.to) return false;
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
    this.base += this.pos;
    this.pos = 0;
    this.end = left;
    // Past the range, only the rest of its last line is wanted: read it in small steps.
    const room = this.buffer.length - left;
    const n = readSync(this.fd, this.buffer, left, this.offset < this.to ? Math.min(room, this.to - this.offset + TAIL) : Math.min(room, TAIL), this.offset);
    this.offset += n;
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
