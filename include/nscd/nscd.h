/**
 * @file nscd.h
 * @brief Umbrella header of libnscd, the nonsmooth contact dynamics library.
 *
 * Include this one header to use the whole public API.
 *
 * **Versioned structs.** Every struct whose first member is
 * `uint32_t struct_size` only grows at its end. Functions accept any
 * struct_size from the struct's size in release 0.1 up to the library's
 * sizeof: an input struct (desc, options) is read as far as the caller's size
 * goes and the fields beyond get their defaults; an *_init function writes
 * exactly struct_size bytes; an output struct (stats, info, result) receives
 * only its first struct_size bytes. Smaller or larger sizes fail with
 * ::NSCD_ERR_STRUCT_SIZE and change nothing. A program built against an older
 * release therefore keeps working with a newer library (docs/abi.md).
 */
#ifndef NSCD_NSCD_H
#define NSCD_NSCD_H

#include "nscd/export.h"
#include "nscd/version.h"
#include "nscd/status.h"
#include "nscd/host.h"
#include "nscd/types.h"
#include "nscd/lcp.h"
#include "nscd/contact_law.h"
#include "nscd/system.h"
#include "nscd/event_driven.h"
#include "nscd/time_stepping.h"
#include "nscd/routh.h"
#include "nscd/restitution.h"
#include "nscd/compliant.h"
#include "nscd/single_contact.h"
#include "nscd/fc3d.h"
#include "nscd/gfc3d.h"
#include "nscd/world.h"
#include "nscd/world_checkpoint.h"
#include "nscd/beam.h"
#include "nscd/joint.h"

#endif /* NSCD_NSCD_H */
