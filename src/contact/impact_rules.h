/* Impact rules beside Newton's LCP (contact/impact.c dispatches on the law's
 * impact_rule): Poisson's kinetic restitution and Routh's frictional impact. */
#ifndef NSCD_CONTACT_IMPACT_RULES_H
#define NSCD_CONTACT_IMPACT_RULES_H

#include "contact/impact.h"

/* Frictionless Poisson restitution for any number of simultaneous contacts:
 * a compression LCP, then a restitution LCP that applies at least e times the
 * compression impulse at every contact (closed contacts take part with e = 0). */
nscd_status nscd__resolve_poisson(nscd__model *model, nscd__impact_work *work, const double *q,
                                  const nscd__impact *impact, double *v);

/* Routh's planar frictional impact of one contact (nscd_routh_impact() with
 * G = [W_T; W_N] M^-1 [W_T; W_N]'). Several contacts: NSCD_ERR_UNSUPPORTED. */
nscd_status nscd__resolve_routh(nscd__model *model, nscd__impact_work *work, const double *q,
                                const nscd__impact *impact, double *v);

#endif
