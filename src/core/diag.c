/* Last-error messages and logging, per handle (no global state). */
#include "core/diag.h"

#include <stdarg.h>
#include <stdint.h>
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
        diag->in_log++;
        diag->log(diag->log_user, NSCD_LOG_ERROR, line);
        diag->in_log--;
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
    /* the handle is not const memory: only this call's view of it is */
    nscd_diag *mutable_diag = (nscd_diag *)(uintptr_t)diag;
    mutable_diag->in_log++;
    diag->log(diag->log_user, level, message);
    mutable_diag->in_log--;
}

int nscd__diag_enter(nscd_diag *diag, const char *call) {
    if (diag->busy > 0 || diag->in_log > 0) {
        /* not nscd__fail: a log hook that calls again would recurse */
        snprintf(diag->last_error, sizeof diag->last_error,
                 "%s called from a callback of the same handle (or of the object it drives); "
                 "return from the callback first",
                 call);
        return 0;
    }
    diag->busy++;
    return 1;
}

int nscd__diag_leave(nscd_diag *diag) {
    diag->busy--;
    return diag->busy == 0 && diag->doomed;
}

int nscd__diag_keep_alive(nscd_diag *diag, const char *what) {
    if (diag->busy > 0) {
        diag->doomed = 1;
        return 1;
    }
    if (diag->in_log > 0) {
        snprintf(diag->last_error, sizeof diag->last_error,
                 "%s inside the log hook was refused: destroy the handle after the call returns",
                 what);
        return 1;
    }
    return 0;
}
