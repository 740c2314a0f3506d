/**
 * @file status.h
 * @brief Status codes returned by every fallible nscd function.
 *
 * A status is an `int32_t`: ::NSCD_OK (0) on success, a fixed negative code on
 * failure. Codes are never renumbered; new codes are only appended. A function
 * that fails leaves every object it was given unchanged, and the handle it
 * was called on (if any) keeps a message describing the failure.
 */
#ifndef NSCD_STATUS_H
#define NSCD_STATUS_H

#include <stdint.h>

#include "nscd/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Result of a fallible nscd function: 0 on success, a negative ::nscd_status_code otherwise. */
typedef int32_t nscd_status;

/** The status codes. Values are part of the ABI and never change. */
enum nscd_status_code {
    NSCD_OK = 0,                    /**< Success. */
    NSCD_ERR_NULL_POINTER = -1,     /**< A required pointer argument was NULL. */
    NSCD_ERR_INVALID_ARGUMENT = -2, /**< An argument is invalid (wrong size, bad enum, ...). */
    NSCD_ERR_NOT_FINITE = -3,       /**< An input value is NaN or infinite. */
    NSCD_ERR_OUT_OF_RANGE = -4,     /**< A parameter lies outside its documented range. */
    NSCD_ERR_OUT_OF_MEMORY = -5,    /**< The allocator returned NULL. */
    NSCD_ERR_STRUCT_SIZE = -6,      /**< A desc/options struct has an unknown struct_size. */
    NSCD_ERR_INDEX = -7,            /**< An index (contact, dof, body, ...) is out of bounds. */
    NSCD_ERR_STALE_HANDLE = -8,     /**< A handle or id no longer refers to a live object. */
    NSCD_ERR_NOT_SPD = -9,   /**< A matrix required to be symmetric positive definite is not. */
    NSCD_ERR_SINGULAR = -10, /**< A linear system is singular or too ill-conditioned. */
    NSCD_ERR_CALLBACK = -11, /**< A user callback returned an error. */
    NSCD_ERR_NOT_CONVERGED = -12, /**< An iterative method reached its limit without converging. */
    NSCD_ERR_ZENO = -13, /**< An accumulation of impacts was detected; integration stopped. */
    NSCD_ERR_STEP_TOO_SMALL = -14, /**< The adaptive step size fell below its minimum. */
    NSCD_ERR_MAX_STEPS = -15,      /**< The step or event budget of one call was exhausted. */
    NSCD_ERR_NOT_COLLIDING = -16, /**< An impact was requested for contacts that are not closing. */
    NSCD_ERR_STATE = -17,         /**< The object is not in a state that allows the call. */
    NSCD_ERR_UNSUPPORTED = -18,   /**< The combination of options or laws is not supported. */
    NSCD_ERR_BUFFER_TOO_SMALL = -19, /**< An output buffer is too small. */
    NSCD_ERR_IO = -20                /**< A file could not be read or written. */
};

/**
 * @brief Name and meaning of a status code.
 * @param status Any value; unknown codes give "unknown status".
 * @return A static, NUL-terminated English string; never NULL.
 */
NSCD_API const char *nscd_status_string(nscd_status status);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_STATUS_H */
