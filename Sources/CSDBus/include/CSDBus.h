#ifndef MEDIAPLAY_CSDBUS_H
#define MEDIAPLAY_CSDBUS_H

// sd-bus (libsystemd) for the MPRIS service: the object tables are C macros,
// and replies and signals are variadic, so both live here; everything else
// is sd-bus's own API, called from Swift.
#include <stdint.h>
#include <sys/eventfd.h>
#include <systemd/sd-bus.h>

/// What the MPRIS objects call back into: every property read or write and
/// every method of org.mpris.MediaPlayer2 and its .Player interface. Each
/// returns 0 or a negative errno (sd-bus turns it into a D-Bus error).
typedef struct mp_mpris_handlers {
    void *context;
    int (*get)(void *context, const char *interface, const char *property, sd_bus_message *reply);
    int (*set)(void *context, const char *interface, const char *property, sd_bus_message *value);
    int (*call)(void *context, const char *interface, const char *member, sd_bus_message *message);
} mp_mpris_handlers;

/// Publishes both MPRIS interfaces at `path`; `handlers` must outlive the slots.
int mp_mpris_add(sd_bus *bus, const char *path, mp_mpris_handlers *handlers, sd_bus_slot **root_slot, sd_bus_slot **player_slot);

/// The empty reply to a method call.
int mp_reply_empty(sd_bus_message *call);

/// The Player interface's Seeked signal (microseconds).
int mp_emit_seeked(sd_bus *bus, const char *path, int64_t position);

/// The descriptor other threads write to wake the bus thread's poll.
static inline int mp_wake_descriptor(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

#endif
