#ifndef MEDIAPLAY_CLINUX_SHIM_H
#define MEDIAPLAY_CLINUX_SHIM_H

// Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc
// module does not define.
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <string.h>
#include <malloc.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

/// Where `needle` first occurs in `haystack`, as an offset; -1 if nowhere.
static inline long mp_find_bytes(const void *haystack, size_t count, const void *needle, size_t needle_count) {
    const void *found = memmem(haystack, count, needle, needle_count);
    return found == NULL ? -1 : (long)((const char *)found - (const char *)haystack);
}

/// Starts writeback of a byte range without waiting for it.
static inline int mp_start_writeback(int fd, off_t offset, off_t count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}

/// Caps the malloc arenas threads spread over (glibc's M_ARENA_MAX).
static inline int mp_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

/// For a process that ends soon after its work: what it frees is kept for
/// its next allocations instead of going back to the system to be faulted
/// in again (blocks up to 4 MiB from the heap, no trim). A list of 10,000
/// server items: a sixth less CPU. Larger blocks are still mapped on their
/// own: at 32 MiB, a 100,000-item list's peak grew by 50 MB; at 4, by 3.
static inline void mp_keep_freed_memory(void) {
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    mallopt(M_TOP_PAD, 64 << 20);
}

/// Lowers the calling thread's priority (nice applies per thread on Linux,
/// and threads it creates inherit it). Raising nice needs no privilege.
/// (Raw syscalls: <sys/resource.h> under _GNU_SOURCE clashes with Glibc's.)
static inline int mp_nice_this_thread(int nice) {
    return (int)syscall(SYS_setpriority, 0 /* PRIO_PROCESS */, (int)syscall(SYS_gettid), nice);
}

/// Makes the whole process yield to everything else: nice 19, the idle
/// scheduling class (it runs only when a core has nothing else to do), and
/// the idle I/O class (its reads wait for every other process's). For work
/// nobody waits for, like measuring loudness in the background.
static inline void mp_idle_priority(void) {
    syscall(SYS_setpriority, 0 /* PRIO_PROCESS */, 0, 19);
    struct { int priority; } param = { 0 };
    syscall(SYS_sched_setscheduler, 0, 5 /* SCHED_IDLE */, &param);
    syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, 3 << 13 /* IOPRIO_CLASS_IDLE */);
}

/// Changes the ids of the calling thread only (raw syscalls: glibc's
/// wrappers change every thread). Tests use it to play another user.
static inline int mp_set_thread_ids(unsigned uid, unsigned gid) {
    if (syscall(SYS_setresgid, gid, gid, gid) != 0) return -1;
    return (int)syscall(SYS_setresuid, uid, uid, uid);
}

/// A pipe whose two ends close on exec (no other thread's child inherits them).
static inline int mp_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

/// Makes a child started with `actions` close every descriptor from `lowest`
/// up (glibc 2.34): it inherits only what the actions give it, never a
/// descriptor another thread has open at that moment (a pipe whose reader
/// waits for its end, say) that would then live as long as the child.
/// (`actions` is a posix_spawn_file_actions_t: <spawn.h>'s _GNU_SOURCE view
/// clashes with Swift's Glibc module, so the one call is declared here.)
extern int posix_spawn_file_actions_addclosefrom_np(void *actions, int lowest);
static inline int mp_spawn_close_from(void *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

/// A descriptor that becomes readable when process `pid` has ended (Linux
/// 5.3; -1 with errno set before that, or when there is no such process).
static inline int mp_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

/// A descriptor that becomes readable once `seconds` have passed on the
/// monotonic clock: a deadline to wait on beside other descriptors.
static inline int mp_deadline_descriptor(double seconds) {
    int descriptor = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (descriptor < 0) return -1;
    if (seconds < 0.001) seconds = 0.001;
    struct itimerspec due = { { 0, 0 }, { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) } };
    if (timerfd_settime(descriptor, 0, &due, NULL) != 0) {
        close(descriptor);
        return -1;
    }
    return descriptor;
}

#endif
