#include "CSDBus.h"

// The MPRIS 2 interfaces as sd-bus object tables (specification:
// org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player). Every entry
// calls one of three handlers, which the Swift side implements.

static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)error;
    mp_mpris_handlers *handlers = userdata;
    return handlers->get(handlers->context, interface, property, reply);
}

static int set_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)error;
    mp_mpris_handlers *handlers = userdata;
    return handlers->set(handlers->context, interface, property, value);
}

static int call_method(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    mp_mpris_handlers *handlers = userdata;
    return handlers->call(handlers->context, sd_bus_message_get_interface(message), sd_bus_message_get_member(message), message);
}

#define CONST SD_BUS_VTABLE_PROPERTY_CONST
#define CHANGES SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static const sd_bus_vtable root_table[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Raise", "", "", call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Quit", "", "", call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("CanQuit", "b", get_property, 0, CONST),
    SD_BUS_PROPERTY("CanRaise", "b", get_property, 0, CONST),
    SD_BUS_PROPERTY("HasTrackList", "b", get_property, 0, CONST),
    SD_BUS_PROPERTY("Identity", "s", get_property, 0, CONST),
    SD_BUS_PROPERTY("DesktopEntry", "s", get_property, 0, CONST),
    SD_BUS_PROPERTY("SupportedUriSchemes", "as", get_property, 0, CONST),
    SD_BUS_PROPERTY("SupportedMimeTypes", "as", get_property, 0, CONST),
    SD_BUS_VTABLE_END
};

static const sd_bus_vtable player_table[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Next", "", "", call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Previous", "", "", call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Pause", "", "", call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("PlayPause", "", "", call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Stop", "", "", call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Play", "", "", call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Seek", "x", SD_BUS_PARAM(Offset), "", , call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("SetPosition", "ox", SD_BUS_PARAM(TrackId) SD_BUS_PARAM(Position), "", , call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("OpenUri", "s", SD_BUS_PARAM(Uri), "", , call_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_NAMES("Seeked", "x", SD_BUS_PARAM(Position), 0),
    SD_BUS_PROPERTY("PlaybackStatus", "s", get_property, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("LoopStatus", "s", get_property, set_property, 0, CHANGES | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_WRITABLE_PROPERTY("Rate", "d", get_property, set_property, 0, CHANGES | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_WRITABLE_PROPERTY("Shuffle", "b", get_property, set_property, 0, CHANGES | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Metadata", "a{sv}", get_property, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("Volume", "d", get_property, set_property, 0, CHANGES | SD_BUS_VTABLE_UNPRIVILEGED),
    // The position moves all the time: read, never signalled (Seeked says jumps).
    SD_BUS_PROPERTY("Position", "x", get_property, 0, 0),
    SD_BUS_PROPERTY("MinimumRate", "d", get_property, 0, CONST),
    SD_BUS_PROPERTY("MaximumRate", "d", get_property, 0, CONST),
    SD_BUS_PROPERTY("CanGoNext", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanGoPrevious", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanPlay", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanPause", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanSeek", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanControl", "b", get_property, 0, CONST),
    SD_BUS_VTABLE_END
};

int mp_mpris_add(sd_bus *bus, const char *path, mp_mpris_handlers *handlers, sd_bus_slot **root_slot, sd_bus_slot **player_slot) {
    int result = sd_bus_add_object_vtable(bus, root_slot, path, "org.mpris.MediaPlayer2", root_table, handlers);
    if (result < 0) return result;
    return sd_bus_add_object_vtable(bus, player_slot, path, "org.mpris.MediaPlayer2.Player", player_table, handlers);
}

int mp_reply_empty(sd_bus_message *call) {
    return sd_bus_reply_method_return(call, NULL);
}

int mp_emit_seeked(sd_bus *bus, const char *path, int64_t position) {
    return sd_bus_emit_signal(bus, path, "org.mpris.MediaPlayer2.Player", "Seeked", "x", position);
}
