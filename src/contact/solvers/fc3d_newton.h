/* fc3d: the semismooth Newton method on the Alart–Curnier function
 * (NSCD_FC3D_NEWTON) and the Gauss–Seidel/Newton switch (NSCD_FC3D_AUTO);
 * docs/fc3d.md "Newton" and "AUTO". */
#ifndef NSCD_CONTACT_FC3D_NEWTON_H
#define NSCD_CONTACT_FC3D_NEWTON_H

#include <stdint.h>

#include "contact/solvers/fc3d_internal.h"

/* NSCD_OK when Newton can solve n contacts with the resolved options:
 * NSCD_ERR_UNSUPPORTED for NSCD_FC3D_NEWTON with a law other than Coulomb or
 * with more than NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS contacts in a build
 * without UMFPACK. NSCD_OK for every other method. */
nscd_status nscd__fc3d_newton_check(int32_t n, const nscd_fc3d_options *opts);

/* True when Newton can factorise the Jacobian of n contacts (dense LU up to
 * NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS, any n with UMFPACK). */
int nscd__fc3d_newton_size_ok(int32_t n);

/* Runs NSCD_FC3D_NEWTON, NSCD_FC3D_PROX or NSCD_FC3D_AUTO (opts->method) on validated input;
 * writes r, u, info as nscd__fc3d_run() does (r, u, info unchanged on
 * NSCD_ERR_OUT_OF_MEMORY). */
nscd_status nscd__fc3d_newton_run(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                                  const nscd_fc3d_options *opts, double *r, double *u,
                                  nscd_fc3d_info *info);

#endif
