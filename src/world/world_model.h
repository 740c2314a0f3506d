/* The world as an nscd__model (world_model.c): the one door from the time
 * steppers (src/integrators/) into the world's room. */
#ifndef NSCD_WORLD_MODEL_H
#define NSCD_WORLD_MODEL_H

#include "core/model.h"
#include "nscd/world.h"

/* The world as an nscd__model (created at the first call, its state read
 * from the bodies); the world owns it. */
nscd_status nscd__world_model(nscd_world *w, nscd__model **model);

#endif
