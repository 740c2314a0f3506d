/* Diagnostics a handle carries: its last error message and the host's log hook. */
#ifndef NSCD_CORE_DIAG_H
#define NSCD_CORE_DIAG_H

#include "nscd/host.h"
#include "nscd/status.h"

#define NSCD_MESSAGE_SIZE 256

typedef struct nscd_diag {
    char last_error[NSCD_MESSAGE_SIZE];
    nscd_log_fn log;
    void *log_user;
} nscd_diag;

#if defined(__GNUC__) || defined(__clang__)
#define NSCD_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define NSCD_PRINTF(fmt, args)
#endif

/* Records the message as the last error (without the status name: callers
 * already have the status), logs "<status string>: <message>" at error level
 * and returns `status`, so that callers can write
 * `return nscd__fail(&h->diag, NSCD_ERR_..., "what %d", x);`. */
nscd_status nscd__fail(nscd_diag *diag, nscd_status status, const char *format, ...)
    NSCD_PRINTF(3, 4);
/* Empties the last error; every public call on a handle that can fail starts
 * with it, so that the message always describes the latest call. */
void nscd__diag_clear(nscd_diag *diag);
/* Sends a formatted message to the log hook, if any. */
void nscd__log(const nscd_diag *diag, int32_t level, const char *format, ...) NSCD_PRINTF(3, 4);

#endif
