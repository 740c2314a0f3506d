/* Last-error messages and logging, per handle (no global state). */
#include "core/diag.h"

#include <stdarg.h>
#include <stdio.h>

nscd_status nscd__fail(nscd_diag *diag, nscd_status status, const char *format, ...) {
    if (diag == NULL) {
        return status;
    }
    int used =
        snprintf(diag->last_error, sizeof diag->last_error, "%s: ", nscd_status_string(status));
    if (used > 0 && (size_t)used < sizeof diag->last_error) {
        va_list args;
        va_start(args, format);
        vsnprintf(diag->last_error + used, sizeof diag->last_error - (size_t)used, format, args);
        va_end(args);
    }
    if (diag->log != NULL) {
        diag->log(diag->log_user, NSCD_LOG_ERROR, diag->last_error);
    }
    return status;
}

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
