#ifndef MEDIAPLAY_CCHAFA_SHIM_H
#define MEDIAPLAY_CCHAFA_SHIM_H

#include <chafa.h>

// g_string_free's return value is marked warn_unused_result; this frees the
// text and keeps nothing.
static inline void mp_g_string_free(GString *string) {
    (void)g_string_free(string, TRUE);
}

#endif
