/**
 * @file host.h
 * @brief Hooks the host application lends to nscd: memory allocation and logging.
 *
 * nscd has no global state. Every object that allocates or logs receives these
 * hooks through its desc struct; a zero-filled ::nscd_allocator means the C
 * library's malloc/free and a NULL log function means silence.
 */
#ifndef NSCD_HOST_H
#define NSCD_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Memory hooks. Either all of `allocate` and `release` are set, or none.
 */
typedef struct nscd_allocator {
    /** Returns `size` bytes aligned for any type, or NULL on failure. */
    void *(*allocate)(void *user, size_t size);
    /** Frees a block returned by `allocate`; `size` is the size it was requested with. */
    void (*release)(void *user, void *block, size_t size);
    /** Passed unchanged to both hooks. */
    void *user;
} nscd_allocator;

/** Severity of a log message. */
typedef enum nscd_log_level {
    NSCD_LOG_DEBUG = 0,   /**< Detailed diagnostics (steps, iterations). */
    NSCD_LOG_INFO = 1,    /**< Noteworthy events (mode changes, Zeno transitions). */
    NSCD_LOG_WARNING = 2, /**< Something suspicious that did not stop the computation. */
    NSCD_LOG_ERROR = 3    /**< The reason of a failing status. */
} nscd_log_level;

/**
 * @brief Log hook. Called from the thread that called into nscd.
 * @param user    The `log_user` pointer of the desc struct.
 * @param level   A ::nscd_log_level value.
 * @param message NUL-terminated text, valid only during the call.
 */
typedef void (*nscd_log_fn)(void *user, int32_t level, const char *message);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_HOST_H */
