#ifndef MEDIAPLAY_CLINUX_SHIM_H
#define MEDIAPLAY_CLINUX_SHIM_H

// Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc
// module does not define.
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Starts writeback of a byte range without waiting for it.
static inline int mp_start_writeback(int fd, off_t offset, off_t count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}

/// Lowers the calling thread's priority (nice applies per thread on Linux,
/// and threads it creates inherit it). Raising nice needs no privilege.
/// (Raw syscalls: <sys/resource.h> under _GNU_SOURCE clashes with Glibc's.)
static inline int mp_nice_this_thread(int nice) {
    return (int)syscall(SYS_setpriority, 0 /* PRIO_PROCESS */, (int)syscall(SYS_gettid), nice);
}

/// Changes the ids of the calling thread only (raw syscalls: glibc's
/// wrappers change every thread). Tests use it to play another user.
static inline int mp_set_thread_ids(unsigned uid, unsigned gid) {
    if (syscall(SYS_setresgid, gid, gid, gid) != 0) return -1;
    return (int)syscall(SYS_setresuid, uid, uid, uid);
}

#endif
