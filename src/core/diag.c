/* Last-error messages and logging, per handle (no global state). */
#include "core/diag.h"

#include <stdarg.h>
#include <stdio.h>

/* The last error holds the message alone: the caller has the status and
 * names it with nscd_status_string() (the examples, the Python package), so a
 * copy of that name in the message was printed twice ("unsupported
 * combination: unsupported combination: ..."). The log hook gets no status,
 * so its line carries the name, once. */
nscd_status nscd__fail(nscd_diag *diag, nscd_status status, const char *format, ...) {
    if (diag == NULL) {
        return status;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(diag->last_error, sizeof diag->last_error, format, args);
    va_end(args);
    if (diag->log != NULL) {
        char line[NSCD_MESSAGE_SIZE + 64];
        snprintf(line, sizeof line, "%s: %s", nscd_status_string(status), diag->last_error);
        diag->log(diag->log_user, NSCD_LOG_ERROR, line);
    }
    return status;
}

void nscd__diag_clear(nscd_diag *diag) { diag->last_error[0] = '\0'; }

void nscd__log(const nscd_diag *diag, int32_t level, const char *format, ...) {
    if (diag == NULL || diag->log == NULL) {
        return;
    }
    char message[NSCD_MESSAGE_SIZE];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    diag->log(diag->log_user, level, message);
}
