/* ED-α (placeholder). */
#include "integrators/mixed_impl.h"

nscd_status nscd__ed_alpha_stages(nscd_time_stepping *ts, const nscd__ts_closed *closed,
                                  double dt) {
    (void)closed, (void)dt;
    return nscd__fail(&ts->diag, NSCD_ERR_UNSUPPORTED, "ED-α not yet");
}
