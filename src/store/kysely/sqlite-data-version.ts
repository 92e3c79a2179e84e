import type BetterSqlite3 from 'better-sqlite3';
import type { DataVersion } from '../ports.ts';

/**
 * SQLite's answer to "has anything changed?", cheap enough to ask on every request.
 * - This connection's writes are told by the connection itself (`noteWrite`, from the statement
 *   cache, for every statement that is not a plain `select`), before they run.
 * - Other connections' commits (another instance on the same file, the CLI) move SQLite's
 *   `data_version`. Reading it takes a read lock on the WAL index, three system calls, so it is
 *   read once per turn of the event loop. That loses nothing: every request handled in a turn
 *   arrived before the turn's first check, so a commit that finished before a request arrived is
 *   seen by it.
 */
export class SqliteDataVersion implements DataVersion {
  private database: BetterSqlite3.Database | null = null;
  private dataVersion: BetterSqlite3.Statement<[], [number]> | null = null;
  private seenDataVersion = -1;
  private checkedThisTurn = false;
  private version = 0;
  private readonly nextTurn = () => {
    this.checkedThisTurn = false;
  };

  /** Called once the connection is open; until then there is no version. */
  attach(database: BetterSqlite3.Database): void {
    this.database = database;
    this.dataVersion = database.prepare<[], [number]>('pragma data_version').raw(true);
  }

  /** This connection is about to run a statement that may write. */
  noteWrite(): void {
    this.version += 1;
  }

  current(): number | null {
    if (this.dataVersion === null || !this.database?.open) return null;
    if (!this.checkedThisTurn) {
      this.checkedThisTurn = true;
      setImmediate(this.nextTurn);
      const dataVersion = this.dataVersion.get()![0];
      if (dataVersion !== this.seenDataVersion) {
        this.seenDataVersion = dataVersion;
        this.version += 1;
      }
    }
    return this.version;
  }
}
