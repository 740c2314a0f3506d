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
    /* Re-entrancy (docs/hostile_input.md): `busy` counts the running calls of
     * the handle that call user code (an advance, a step: nscd__diag_enter);
     * a destroy while busy only sets `doomed`, and the outermost call frees
     * the handle when it returns (nscd__diag_leave). `in_log` is set while
     * the log hook runs: a destroy from there, outside such a call, is
     * refused (the caller still uses the handle after the hook returns). */
    int32_t busy;
    int32_t doomed;
    int32_t in_log;
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
/* A call that runs user code starts with enter: 0 when the handle is
 * already inside such a call or inside its log hook (the nested call must
 * fail with NSCD_ERR_STATE), else 1 and the handle is busy until leave. */
int nscd__diag_enter(nscd_diag *diag, const char *call);
/* Ends what enter began: 1 when this was the outermost call and the handle
 * was destroyed meanwhile (the caller frees it now and returns
 * NSCD_ERR_STALE_HANDLE), else 0. */
int nscd__diag_leave(nscd_diag *diag);
/* The start of every destroy: 1 when the handle must stay (inside one of
 * its own calls: doomed, freed by the call's leave; inside its log hook
 * outside such a call: refused, with a message), 0 when it may be freed. */
int nscd__diag_keep_alive(nscd_diag *diag, const char *what);
/* Sends a formatted message to the log hook, if any. */
void nscd__log(const nscd_diag *diag, int32_t level, const char *format, ...) NSCD_PRINTF(3, 4);

#endif
