import type pg from "pg";

/** Text-format values of every row the script's statements returned, in order. */
export type ScriptRows = (string | null)[][];

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]); // 'c', length 4
const COPY_FAIL = 0x66; // 'f', then a length and a NUL-terminated message

/** The part of pg's Connection a submittable uses. */
interface Connection {
  query(text: string): void;
  stream: { write(chunk: Buffer): boolean };
}

/**
 * A pg "submittable": one simple-protocol Query holding several statements, with the data of its
 * `COPY … FROM STDIN` statements written right behind it, before PostgreSQL asks for it.
 *
 * Protocol facts this relies on: the backend runs a multi-statement Query in order and, on reaching a
 * COPY FROM STDIN, reads CopyData up to CopyDone from the socket — data already there is simply read.
 * After an error the rest of the Query is skipped and any CopyData/CopyDone still arriving is dropped,
 * so a failed script leaves nothing half-read; the caller ends the open transaction (ROLLBACK).
 * pg hands the active query the backend's messages; on an ErrorResponse it detaches the query at once
 * (no ReadyForQuery follows for it), and on a dead socket it reports the error the same way.
 */
class Script {
  private readonly rows: ScriptRows = [];
  private settled = false;
  private failure: unknown = undefined;
  readonly done: Promise<ScriptRows>;
  private resolve!: (rows: ScriptRows) => void;
  private reject!: (error: unknown) => void;

  constructor(
    private readonly sql: string,
    private readonly copies: readonly Iterable<string>[],
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: Connection): void {
    connection.query(this.sql);
    const socket = connection.stream;
    try {
      for (const copy of this.copies) {
        for (const chunk of copy) {
          const payload = Buffer.from(chunk, "utf8");
          const header = Buffer.allocUnsafe(5);
          header[0] = COPY_DATA;
          header.writeUInt32BE(payload.length + 4, 1);
          socket.write(header);
          socket.write(payload);
        }
        socket.write(COPY_DONE);
      }
    } catch (error) {
      // The COPY text could not be produced (e.g. a value no format accepts). A COPY left without its CopyDone
      // would wait forever: CopyFail ends it with an error, the rest of the script is skipped, and the caller
      // gets this error rather than PostgreSQL's report of the CopyFail.
      this.failure = error;
      const message = Buffer.from(`COPY data could not be produced: ${(error as Error)?.message ?? String(error)}`.replace(/\0/g, ""), "utf8");
      const fail = Buffer.allocUnsafe(message.length + 6);
      fail[0] = COPY_FAIL;
      fail.writeUInt32BE(message.length + 5, 1);
      message.copy(fail, 5);
      fail[fail.length - 1] = 0;
      socket.write(fail);
    }
  }

  handleRowDescription(): void {}
  handleDataRow(message: { fields: (string | null)[] }): void {
    this.rows.push(message.fields);
  }
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {} // its data was sent with the query
  handleCopyData(): void {}

  handleError(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(this.failure ?? error);
  }

  handleReadyForQuery(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.failure !== undefined)
      this.reject(this.failure); // a CopyFail never lets a script succeed
    else this.resolve(this.rows);
  }
}

/**
 * Runs `sql` (several statements separated by semicolons, no parameters) in one round trip, feeding its
 * `COPY … FROM STDIN` statements in order from `copies` (COPY text, any chunking; exactly one per such statement).
 * Resolves with the rows the statements returned; rejects with the first error (pg's DatabaseError, with its SQLSTATE
 * in `code`), or with the error a copy threw while its text was produced (the COPY is then failed on the server).
 * The copies are consumed synchronously while the data is written: PostgreSQL starts on the first chunk while
 * later ones are produced, and once everything is written the backend works without waiting for this process.
 */
export function runScript(client: pg.ClientBase, sql: string, copies: readonly Iterable<string>[] = []): Promise<ScriptRows> {
  const script = new Script(sql, copies);
  client.query(script as unknown as pg.Submittable);
  return script.done;
}
