/* First-release sizes of the public structs that carry struct_size, and the
 * helpers through which every function reads and writes them.
 *
 * The promise (docs/abi.md): a struct whose first member is
 * `uint32_t struct_size` only ever grows at its end, so a binary built
 * against an older release keeps working with a newer library. Functions
 * accept any struct_size from the struct's first-release size up to the
 * current sizeof, touch only the caller's bytes and default the rest.
 *
 * Rules for adding a field to such a struct:
 * 1. Append it after the last field; never reorder, remove, retype or resize
 *    a field, and never change a NSCD__*_SIZE_0_1 constant below.
 * 2. Document it in the public header with "(since 0.N)" and give it a
 *    default in the struct's *_init function (or in the code that fills an
 *    output struct). Callers with the older size get that default.
 * 3. Read input structs only through nscd__struct_read() and write
 *    caller-sized output structs only through nscd__struct_write(); check
 *    output sizes with nscd__struct_size_ok() before changing anything.
 * 4. Add a test of the old size to tests/unit/test_struct_versions.c.
 *
 * A first-release size is the end of the last field of that release
 * (offsetof + sizeof, without trailing padding): the smallest struct_size an
 * old caller can hold. Its sizeof(...) at the time, which is what old
 * binaries pass, lies between that end and the current sizeof. */
#ifndef NSCD_CORE_STRUCT_SIZES_H
#define NSCD_CORE_STRUCT_SIZES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nscd/beam.h"
#include "nscd/compliant.h"
#include "nscd/event_driven.h"
#include "nscd/fc3d.h"
#include "nscd/gfc3d.h"
#include "nscd/joint.h"
#include "nscd/routh.h"
#include "nscd/single_contact.h"
#include "nscd/status.h"
#include "nscd/system.h"
#include "nscd/time_stepping.h"
#include "nscd/world.h"

/* Bytes of `type` up to and including `member`. */
#define NSCD__SIZE_THROUGH(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

/* Release 0.1.0: descs and options (input, filled by *_init). */
#define NSCD__SYSTEM_DESC_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_system_desc, log_user)
#define NSCD__CONTACT_DESC_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_contact_desc, n_tangent)
#define NSCD__EVENT_DRIVEN_OPTIONS_SIZE_0_1                                                        \
    NSCD__SIZE_THROUGH(nscd_event_driven_options, on_event_user)
#define NSCD__FC3D_OPTIONS_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_fc3d_options, allocator)
#define NSCD__COULOMB_OPTIONS_SIZE_0_1                                                             \
    NSCD__SIZE_THROUGH(nscd_coulomb_options, enumeration_safeguard)

/* Release 0.1.0: results the caller sizes (output). */
#define NSCD__EVENT_DRIVEN_STATS_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_event_driven_stats, stopped)
#define NSCD__FC3D_INFO_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_fc3d_info, local_failures)
#define NSCD__ROUTH_RESULT_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_routh_result, slip_after)
#define NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_central_impact_result, steps)

/* Release 0.1.0: filled by the library and handed to the user's handler,
 * always with the library's sizeof (handlers check struct_size). */
#define NSCD__EVENT_INFO_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_event_info, v_after)

/* Release 0.2.0: structs new in 0.2 (their first size is their 0.2 size). */
#define NSCD__TIME_STEPPING_OPTIONS_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_time_stepping_options, prox_r)
#define NSCD__TIME_STEPPING_STATS_SIZE_0_2                                                         \
    NSCD__SIZE_THROUGH(nscd_time_stepping_stats, workspace_peak_bytes)
#define NSCD__TIME_STEPPING_REPORT_SIZE_0_2                                                        \
    NSCD__SIZE_THROUGH(nscd_time_stepping_report, newton_iterations)
#define NSCD__WORLD_DESC_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_world_desc, log_user)
#define NSCD__BODY_DESC_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_body_desc, user_id)
#define NSCD__SHAPE_DESC_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_shape_desc, mask)
#define NSCD__WORLD_STEP_REPORT_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_world_step_report, broad_pairs)
#define NSCD__BEAM_DESC_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_beam_desc, allocator)
#define NSCD__JOINT_DESC_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_joint_desc, energy_form)
/* nscd_clearance_joint_desc grew after its first 0.2 size: energy_form
 * (324 -> 328 bytes); a caller of the first size gets its default, 1. */
#define NSCD__CLEARANCE_JOINT_DESC_SIZE_0_2                                                        \
    NSCD__SIZE_THROUGH(nscd_clearance_joint_desc, impact_law)
#define NSCD__FC3D_BLOCK_REPORT_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_fc3d_block_report, message)

/* Release 0.2.0: the global fc3d problem (gfc3d.h). */
#define NSCD__GFC3D_OPTIONS_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_gfc3d_options, condensation)
#define NSCD__GFC3D_INFO_SIZE_0_2 NSCD__SIZE_THROUGH(nscd_gfc3d_info, dense_condensation)

/* The constants are frozen. On the 64-bit ABIs (8-byte pointers and
 * doubles) they are these numbers; a field moved, inserted or resized
 * inside a 0.1 prefix stops the build here. */
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(NSCD__SYSTEM_DESC_SIZE_0_1 == 96, "nscd_system_desc 0.1 prefix changed");
_Static_assert(NSCD__CONTACT_DESC_SIZE_0_1 == 28, "nscd_contact_desc 0.1 prefix changed");
_Static_assert(NSCD__EVENT_DRIVEN_OPTIONS_SIZE_0_1 == 152,
               "nscd_event_driven_options 0.1 prefix changed");
_Static_assert(NSCD__FC3D_OPTIONS_SIZE_0_1 == 80, "nscd_fc3d_options 0.1 prefix changed");
_Static_assert(NSCD__COULOMB_OPTIONS_SIZE_0_1 == 24, "nscd_coulomb_options 0.1 prefix changed");
_Static_assert(NSCD__EVENT_DRIVEN_STATS_SIZE_0_1 == 60,
               "nscd_event_driven_stats 0.1 prefix changed");
_Static_assert(NSCD__FC3D_INFO_SIZE_0_1 == 36, "nscd_fc3d_info 0.1 prefix changed");
_Static_assert(NSCD__ROUTH_RESULT_SIZE_0_1 == 88, "nscd_routh_result 0.1 prefix changed");
_Static_assert(NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1 == 64,
               "nscd_central_impact_result 0.1 prefix changed");
_Static_assert(NSCD__EVENT_INFO_SIZE_0_1 == 88, "nscd_event_info 0.1 prefix changed");
_Static_assert(NSCD__TIME_STEPPING_OPTIONS_SIZE_0_2 == 128,
               "nscd_time_stepping_options 0.2 prefix changed");
_Static_assert(NSCD__TIME_STEPPING_STATS_SIZE_0_2 == 48,
               "nscd_time_stepping_stats 0.2 prefix changed");
_Static_assert(NSCD__TIME_STEPPING_REPORT_SIZE_0_2 == 72,
               "nscd_time_stepping_report 0.2 prefix changed");
_Static_assert(NSCD__WORLD_DESC_SIZE_0_2 == 192, "nscd_world_desc 0.2 prefix changed");
_Static_assert(NSCD__BODY_DESC_SIZE_0_2 == 160, "nscd_body_desc 0.2 prefix changed");
_Static_assert(NSCD__SHAPE_DESC_SIZE_0_2 == 116, "nscd_shape_desc 0.2 prefix changed");
_Static_assert(NSCD__WORLD_STEP_REPORT_SIZE_0_2 == 40, "nscd_world_step_report 0.2 prefix changed");
_Static_assert(NSCD__BEAM_DESC_SIZE_0_2 == 112, "nscd_beam_desc 0.2 prefix changed");
_Static_assert(NSCD__JOINT_DESC_SIZE_0_2 == 140, "nscd_joint_desc 0.2 prefix changed");
_Static_assert(NSCD__CLEARANCE_JOINT_DESC_SIZE_0_2 == 324,
               "nscd_clearance_joint_desc 0.2 prefix changed");
_Static_assert(NSCD__FC3D_BLOCK_REPORT_SIZE_0_2 == 200,
               "nscd_fc3d_block_report 0.2 prefix changed");
_Static_assert(NSCD__GFC3D_OPTIONS_SIZE_0_2 == 52, "nscd_gfc3d_options 0.2 prefix changed");
_Static_assert(NSCD__GFC3D_INFO_SIZE_0_2 == 56, "nscd_gfc3d_info 0.2 prefix changed");
#endif

/* True when `size` is a struct_size this library understands: from the
 * struct's first-release size `first` to its current sizeof `current`. */
static inline bool nscd__struct_size_ok(size_t size, size_t first, size_t current) {
    return size >= first && size <= current;
}

/* The struct_size stamped in the first member of a struct. */
uint32_t nscd__struct_size_of(const void *object);

/* The *_init functions: `defaults` is a complete struct of `current` bytes
 * holding every default. Checks `size` (NULL object: NSCD_ERR_NULL_POINTER,
 * out of range: NSCD_ERR_STRUCT_SIZE, object untouched), then copies the
 * first `size` bytes into `object` and stamps struct_size = size: nothing is
 * written beyond the caller's struct. */
nscd_status nscd__struct_init(void *object, size_t size, const void *defaults, size_t current,
                              size_t first);

/* Reads an input struct: `dst_defaults` is a complete struct of `current`
 * bytes holding the defaults; the caller's struct `src` (its struct_size in
 * [first, current]) is copied over its prefix, and dst's struct_size becomes
 * `current`, so the copy reads like a current struct. Out of range:
 * NSCD_ERR_STRUCT_SIZE and dst unchanged. `src` must not be NULL. */
nscd_status nscd__struct_read(void *dst_defaults, size_t current, const void *src, size_t first);

/* Writes an output struct the caller sized: copies the first
 * dst->struct_size bytes of the complete result `src` (`current` bytes) into
 * `dst`, keeping the caller's struct_size. Out of range: NSCD_ERR_STRUCT_SIZE
 * and dst unchanged (check first with nscd__struct_size_ok() to fail before
 * any work). */
nscd_status nscd__struct_write(void *dst, const void *src, size_t current, size_t first);

#endif
