/* Internal access to the generic system. */
#ifndef NSCD_CORE_SYSTEM_H
#define NSCD_CORE_SYSTEM_H

#include "core/model.h"
#include "nscd/system.h"

/* The stepper interface of a system (owned by the system). */
nscd__model *nscd__system_model(nscd_system *system);

#endif
