/* The binary VTK XML writer of the rigid-body world (world_vtk_xml.c),
 * shared with the distributed world's pieces (mpi/world_mpi_vtk.c): which
 * bodies a piece holds and what user id each one shows. */
#ifndef NSCD_MODELS_WORLD_VTK_XML_H
#define NSCD_MODELS_WORLD_VTK_XML_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nscd/world.h"

/* keep(ctx, i): write dense body i (NULL: every live body); user_id(ctx, i):
 * its `user_id` (NULL: nscd_body_desc::user_id); body_id(ctx, i): its
 * `body_id` (NULL: its nscd_body_id). */
typedef struct nscd__world_vtk_filter {
    bool (*keep)(const void *ctx, int32_t body);
    uint64_t (*user_id)(const void *ctx, int32_t body);
    uint64_t (*body_id)(const void *ctx, int32_t body);
    const void *ctx;
} nscd__world_vtk_filter;

/* Writes the shapes part of the bodies `filter` keeps (NULL: all) to path;
 * flags as nscd_world_write_vtk_xml() (the part bits are ignored). Returns
 * NSCD_OK or NSCD_ERR_IO; no message. */
nscd_status nscd__world_vtk_write_shapes(const nscd_world *w, const char *path, int32_t flags,
                                         const nscd__world_vtk_filter *filter);
/* The <PPoints> and <PPointData> of the shapes part for a parallel index
 * (.pvtp) of pieces written with the same flags; nonzero on a write error. */
int nscd__world_vtk_write_pshapes(FILE *f, int32_t flags);

/* Writes <prefix><tag>.pvd (through <prefix><tag>.pvd.tmp, renamed over
 * it) listing frame k as <base><tag>_%06d<ext> at times[k]: NSCD_OK,
 * NSCD_ERR_IO or NSCD_ERR_OUT_OF_MEMORY; no message. */
nscd_status nscd__vtk_write_collection(const char *prefix, const char *base, const char *tag,
                                       const char *ext, const double *times, int32_t frames);
/* The last component of a path prefix (what a collection names files by). */
const char *nscd__vtk_base_name(const char *prefix);

#endif
