/* Names of the status codes. */
#include "nscd/status.h"

const char *nscd_status_string(nscd_status status) {
    switch (status) {
    case NSCD_OK: return "ok";
    case NSCD_ERR_NULL_POINTER: return "null pointer argument";
    case NSCD_ERR_INVALID_ARGUMENT: return "invalid argument";
    case NSCD_ERR_NOT_FINITE: return "non-finite input (NaN or infinity)";
    case NSCD_ERR_OUT_OF_RANGE: return "parameter out of range";
    case NSCD_ERR_OUT_OF_MEMORY: return "out of memory";
    case NSCD_ERR_STRUCT_SIZE: return "unknown struct_size";
    case NSCD_ERR_INDEX: return "index out of bounds";
    case NSCD_ERR_STALE_HANDLE: return "stale handle";
    case NSCD_ERR_NOT_SPD: return "matrix not symmetric positive definite";
    case NSCD_ERR_SINGULAR: return "singular or ill-conditioned system";
    case NSCD_ERR_CALLBACK: return "user callback failed";
    case NSCD_ERR_NOT_CONVERGED: return "iteration did not converge";
    case NSCD_ERR_ZENO: return "accumulation of impacts (Zeno) detected";
    case NSCD_ERR_STEP_TOO_SMALL: return "step size below minimum";
    case NSCD_ERR_MAX_STEPS: return "step budget exhausted";
    case NSCD_ERR_NOT_COLLIDING: return "contacts are not colliding";
    case NSCD_ERR_STATE: return "object not in a valid state for this call";
    case NSCD_ERR_UNSUPPORTED: return "unsupported combination";
    case NSCD_ERR_BUFFER_TOO_SMALL: return "output buffer too small";
    case NSCD_ERR_IO: return "input/output error";
    default: return "unknown status";
    }
}
