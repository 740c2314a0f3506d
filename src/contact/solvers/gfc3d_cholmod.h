/* The optional CHOLMOD factorisation of the global fc3d solver (gfc3d.c). */
#ifndef NSCD_CONTACT_GFC3D_CHOLMOD_H
#define NSCD_CONTACT_GFC3D_CHOLMOD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sparse_ldl.h"

/* True when the library was built with CHOLMOD. */
bool nscd__gfc3d_have_cholmod(void);

/* As nscd__ldl_factor() (same arguments and statuses) with CHOLMOD's ordering
 * and simplicial LDL'; CHOLMOD's own work memory comes from malloc.
 * NSCD_ERR_UNSUPPORTED when built without CHOLMOD. */
nscd_status nscd__ldl_factor_cholmod(const nscd_allocator *a, int32_t n, const int32_t *Mp,
                                     const int32_t *Mi, const double *Mx, double pivot_tol,
                                     nscd__ldl *f);

#endif
