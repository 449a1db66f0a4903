#ifndef MEDIAPLAY_CSQLITE_SHIM_H
#define MEDIAPLAY_CSQLITE_SHIM_H

// SQLite's variadic calls, which Swift cannot import, for the few settings
// GRDB has no name for.
#include <sqlite3.h>

/// A connection's close leaves its write-ahead log as it is, unmerged:
/// what was committed there is as safe as in the database (the next
/// process to open it reads it), and the merge happens at a later commit's
/// automatic checkpoint. A short command's exit then waits for no copy of
/// its writes into the database and its syncs (a server's cold list: 10 ms
/// of its end).
static inline int mp_sqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

#endif
