/**
 * @file nscd.h
 * @brief Umbrella header of libnscd, the nonsmooth contact dynamics library.
 *
 * Include this one header to use the whole public API.
 */
#ifndef NSCD_NSCD_H
#define NSCD_NSCD_H

#include "nscd/export.h"
#include "nscd/version.h"
#include "nscd/status.h"
#include "nscd/host.h"
#include "nscd/lcp.h"
#include "nscd/contact_law.h"
#include "nscd/system.h"
#include "nscd/event_driven.h"
#include "nscd/routh.h"
#include "nscd/restitution.h"
#include "nscd/compliant.h"
#include "nscd/single_contact.h"
#include "nscd/fc3d.h"

#endif /* NSCD_NSCD_H */
