#ifndef MEDIAPLAY_CLINUX_SHIM_H
#define MEDIAPLAY_CLINUX_SHIM_H

// Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc
// module does not define.
#define _GNU_SOURCE 1
#include <fcntl.h>

/// Starts writeback of a byte range without waiting for it.
static inline int mp_start_writeback(int fd, off_t offset, off_t count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}

#endif
