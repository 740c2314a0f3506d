/* bench_world's ODE engine (libode, double precision): the scenario with
 * ODE's QuickStep (projected SOR, `sweeps` iterations,
 * dWorldSetQuickStepNumIterations), ERP = the scenario's error reduction,
 * CFM = 1e-10 (no softness to speak of), SOR over-relaxation left at ODE's
 * default 1.3, no auto-disable. Contacts: dSpaceCollide over one space (a
 * quadtree over the floor, the fastest of ODE's spaces here at every size;
 * --ode-space hash|sap|quadtree picks one), up to BW_ODE_CONTACTS contacts
 * per pair (sphere-sphere and sphere-plane give one; box-box, cylinder and
 * hull pairs up to four: a resting face needs its corners),
 * dContactApprox1: the friction
 * pyramid scaled by the normal impulse (the closest ODE has to Coulomb's
 * law), mu = the scenario's friction, no bounce. The floor and the four
 * walls are non-placeable dPlane geoms. The bodies: dSphere, dBox,
 * dCapsule, dCylinder (axis z) and dConvex (the scenario's icosahedron, its
 * planes and faces given), with the scenario's mass and principal inertia
 * (dMassSetSphere for spheres, as before the shapes came). Debian's libode
 * has libccd: hull-hull and cylinder-capsule pairs are libccd's MPR, one
 * point per pair (docs/benchmarks.md, "Shapes"). Memory is counted through
 * dSetAllocHandler / dSetReallocHandler / dSetFreeHandler (every byte ODE
 * allocates with dAlloc). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ode/ode.h>

#include "counting.h"
#include "engine.h"
#include "ode_world.h"

/* Contacts per pair at most. */
#define BW_ODE_CONTACTS 4

typedef struct ode_engine {
    dWorldID world;
    dSpaceID space;
    dJointGroupID contacts;
    dBodyID *bodies;
    dGeomID *geoms;
    /* dConvex does not copy its data: the planes, points and faces of every
     * hull, kept until the world is destroyed (NULL without hulls). */
    dReal *hull_planes, *hull_points;
    unsigned int *hull_faces;
    int32_t n;
    double friction, dt;
    /* of the step being collided */
    int32_t step_contacts;
    double step_penetration;
} ode_engine;

static int ode_space_kind = BW_ODE_SPACE_AUTO;

void bw_ode_set_space(int kind) { ode_space_kind = kind; }

static void *counted_alloc(dsizeint size) {
    void *p = malloc(size);
    if (p != NULL) {
        bw_count_allocate(size);
    }
    return p;
}

static void *counted_realloc(void *ptr, dsizeint old_size, dsizeint new_size) {
    void *p = realloc(ptr, new_size);
    if (p != NULL) {
        bw_count_release(old_size);
        bw_count_allocate(new_size);
    }
    return p;
}

static void counted_free(void *ptr, dsizeint size) {
    if (ptr != NULL) {
        bw_count_release(size);
    }
    free(ptr);
}

/* ODE's allocator hooks and library state are process-wide: set them once,
 * before ODE allocates anything. */
static int ode_initialised;

static void ode_init_once(void) {
    if (!ode_initialised) {
        dSetAllocHandler(counted_alloc);
        dSetReallocHandler(counted_realloc);
        dSetFreeHandler(counted_free);
        dInitODE2(0);
        ode_initialised = 1;
    }
}

static void near_callback(void *data, dGeomID a, dGeomID b) {
    ode_engine *e = data;
    dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
    if (ba == NULL && bb == NULL) {
        return; /* two walls */
    }
    dContact contact[BW_ODE_CONTACTS];
    memset(contact, 0, sizeof contact);
    const int n = dCollide(a, b, BW_ODE_CONTACTS, &contact[0].geom, sizeof contact[0]);
    for (int i = 0; i < n; ++i) {
        contact[i].surface.mode = dContactApprox1;
        contact[i].surface.mu = e->friction;
        dJointID joint = dJointCreateContact(e->world, e->contacts, &contact[i]);
        dJointAttach(joint, ba, bb);
        e->step_contacts++;
        if (contact[i].geom.depth > e->step_penetration) {
            e->step_penetration = contact[i].geom.depth;
        }
    }
}

/* The quadtree is the fastest of ODE's spaces on this pile at every size
 * (ms per step, CPU, repeated runs on a shared machine: at 1e3 bodies
 * 3.1-3.3 against 3.2-4.1 for sweep and prune and 3.5-4.5 for the hash
 * space; at 1e4 50-53 against 56-80 for sweep and prune; at 1e5 the collision
 * alone takes 0.25 s against 0.35 s and 5.3 s: the hash space, ODE's usual
 * choice, degrades past 1e4 bodies). See docs/benchmarks.md. */
static int auto_space(const bw_scenario *s) {
    (void)s;
    return BW_ODE_SPACE_QUADTREE;
}

static dSpaceID create_space(const bw_scenario *s) {
    switch (ode_space_kind == BW_ODE_SPACE_AUTO ? auto_space(s) : ode_space_kind) {
    case BW_ODE_SPACE_SAP: return dSweepAndPruneSpaceCreate(0, dSAP_AXES_XYZ);
    case BW_ODE_SPACE_QUADTREE: {
        /* Over the floor (ODE's quadtree splits x and y), leaves of about two
         * sphere diameters. */
        const double side = s->box[0] > s->box[1] ? s->box[0] : s->box[1];
        const int depth = (int)ceil(log2(side / (4.0 * s->radius)));
        const dVector3 centre = {0.5 * s->box[0], 0.5 * s->box[1], 0.5 * side, 0};
        const dVector3 extents = {s->box[0], s->box[1], side, 0};
        return dQuadTreeSpaceCreate(0, centre, extents, depth < 1 ? 1 : depth);
    }
    default: {
        /* ODE's default levels (cells of 2^-3 to 2^10 m): a 1 m sphere goes
         * to the 1 m cells. */
        return dHashSpaceCreate(0);
    }
    }
}

static void ode_engine_destroy(void *engine) {
    ode_engine *e = engine;
    if (e == NULL) {
        return;
    }
    if (e->contacts != NULL) {
        dJointGroupDestroy(e->contacts);
    }
    if (e->space != NULL) {
        dSpaceDestroy(e->space); /* and its geoms (cleanup mode on) */
    }
    if (e->world != NULL) {
        dWorldDestroy(e->world); /* and its bodies */
    }
    free(e->bodies);
    free(e->geoms);
    free(e->hull_planes);
    free(e->hull_points);
    free(e->hull_faces);
    free(e);
}

static void add_walls(ode_engine *e, const bw_scenario *s) {
    /* dCreatePlane(a, b, c, d): the solid is a x + b y + c z < d. */
    dCreatePlane(e->space, 0, 0, 1, 0);
    dCreatePlane(e->space, 1, 0, 0, 0);
    dCreatePlane(e->space, -1, 0, 0, -s->box[0]);
    dCreatePlane(e->space, 0, 1, 0, 0);
    dCreatePlane(e->space, 0, -1, 0, -s->box[1]);
}

/* Body i's hull as a dConvex: its planes (outward normal n, n . x = d), its
 * points and its faces ("3, a, b, c" each), in arrays that live as long as
 * the engine (ODE keeps the pointers). NULL when out of memory. */
static dGeomID create_hull(ode_engine *e, const bw_scenario *s, int32_t i) {
    if (e->hull_points == NULL) {
        e->hull_planes = malloc((size_t)s->bodies * 4 * BW_HULL_FACES * sizeof *e->hull_planes);
        e->hull_points = malloc((size_t)s->bodies * 3 * BW_HULL_POINTS * sizeof *e->hull_points);
        e->hull_faces = malloc(4 * BW_HULL_FACES * sizeof *e->hull_faces);
        if (e->hull_planes == NULL || e->hull_points == NULL || e->hull_faces == NULL) {
            return NULL;
        }
        int faces[BW_HULL_FACES][3];
        bw_hull_faces(faces);
        for (int f = 0; f < BW_HULL_FACES; ++f) {
            e->hull_faces[4 * f] = 3;
            for (int k = 0; k < 3; ++k) {
                e->hull_faces[4 * f + 1 + k] = (unsigned int)faces[f][k];
            }
        }
    }
    double p[3 * BW_HULL_POINTS];
    bw_hull_points(s->body[i].scale, p);
    dReal *points = &e->hull_points[(size_t)i * 3 * BW_HULL_POINTS];
    dReal *planes = &e->hull_planes[(size_t)i * 4 * BW_HULL_FACES];
    for (int k = 0; k < 3 * BW_HULL_POINTS; ++k) {
        points[k] = p[k];
    }
    for (int f = 0; f < BW_HULL_FACES; ++f) {
        const unsigned int *face = &e->hull_faces[4 * f + 1];
        const double *a = &p[3 * face[0]], *b = &p[3 * face[1]], *c = &p[3 * face[2]];
        const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                       u[0] * v[1] - u[1] * v[0]};
        const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; ++k) {
            planes[4 * f + k] = n[k] / len;
        }
        planes[4 * f + 3] = (n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / len;
    }
    return dCreateConvex(e->space, planes, BW_HULL_FACES, points, BW_HULL_POINTS, e->hull_faces);
}

static void *ode_engine_create(const bw_scenario *s, char *error, size_t error_size) {
    ode_init_once();
    ode_engine *e = calloc(1, sizeof *e);
    if (e == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    e->n = s->bodies;
    e->friction = s->friction;
    e->dt = s->dt;
    e->bodies = malloc((size_t)s->bodies * sizeof *e->bodies);
    e->geoms = malloc((size_t)s->bodies * sizeof *e->geoms);
    if (e->bodies == NULL || e->geoms == NULL) {
        snprintf(error, error_size, "out of memory");
        ode_engine_destroy(e);
        return NULL;
    }
    e->world = dWorldCreate();
    dWorldSetGravity(e->world, 0, 0, -s->gravity);
    dWorldSetERP(e->world, s->error_reduction);
    dWorldSetCFM(e->world, 1e-10);
    dWorldSetQuickStepNumIterations(e->world, s->sweeps);
    dWorldSetAutoDisableFlag(e->world, 0);
    e->space = create_space(s);
    e->contacts = dJointGroupCreate(0);
    add_walls(e, s);
    for (int32_t i = 0; i < s->bodies; ++i) {
        const bw_body *b = &s->body[i];
        dBodyID body = dBodyCreate(e->world);
        dMass mass;
        if (b->kind == BW_SHAPE_SPHERE) {
            dMassSetSphere(&mass, s->density, b->radius);
        } else {
            dMassSetParameters(&mass, b->mass, 0, 0, 0, b->inertia[0], b->inertia[1], b->inertia[2],
                               0, 0, 0);
        }
        dBodySetMass(body, &mass);
        dBodySetPosition(body, s->positions[3 * i], s->positions[3 * i + 1],
                         s->positions[3 * i + 2]);
        dGeomID geom;
        switch (b->kind) {
        case BW_SHAPE_BOX:
            geom = dCreateBox(e->space, 2 * b->half_extents[0], 2 * b->half_extents[1],
                              2 * b->half_extents[2]);
            break;
        case BW_SHAPE_CAPSULE:
            geom = dCreateCapsule(e->space, b->radius, 2 * b->half_height);
            break;
        case BW_SHAPE_CYLINDER:
            geom = dCreateCylinder(e->space, b->radius, 2 * b->half_height);
            break;
        case BW_SHAPE_CONVEX: geom = create_hull(e, s, i); break;
        default: geom = dCreateSphere(e->space, b->radius); break;
        }
        if (geom == NULL) {
            snprintf(error, error_size, "out of memory");
            ode_engine_destroy(e);
            return NULL;
        }
        dGeomSetBody(geom, body);
        if (b->kind != BW_SHAPE_SPHERE) {
            const dQuaternion q = {b->orientation[0], b->orientation[1], b->orientation[2],
                                   b->orientation[3]};
            dBodySetQuaternion(body, q);
        }
        e->bodies[i] = body;
        e->geoms[i] = geom;
    }
    return e;
}

static int ode_engine_step(void *engine, bw_step_stats *stats, char *error, size_t error_size) {
    ode_engine *e = engine;
    e->step_contacts = 0;
    e->step_penetration = 0.0;
    dSpaceCollide(e->space, e, near_callback);
    if (!dWorldQuickStep(e->world, e->dt)) {
        snprintf(error, error_size, "dWorldQuickStep failed (out of memory)");
        return -1;
    }
    dJointGroupEmpty(e->contacts);
    stats->contacts = e->step_contacts;
    stats->max_penetration = e->step_penetration;
    return 0;
}

static int ode_engine_state(void *engine, double *positions, double *velocities,
                            double *angular_velocities) {
    ode_engine *e = engine;
    for (int32_t i = 0; i < e->n; ++i) {
        const dReal *x = dBodyGetPosition(e->bodies[i]), *v = dBodyGetLinearVel(e->bodies[i]),
                    *w = dBodyGetAngularVel(e->bodies[i]);
        for (int k = 0; k < 3; ++k) {
            positions[3 * i + k] = x[k];
            velocities[3 * i + k] = v[k];
            angular_velocities[3 * i + k] = w[k];
        }
    }
    return 0;
}

static const bw_engine ODE_ENGINE = {"ode",
                                     ode_engine_create,
                                     ode_engine_step,
                                     ode_engine_state,
                                     ode_engine_destroy,
                                     "dSetAllocHandler hooks (every dAlloc byte)"};

const bw_engine *bw_engine_ode(void) { return &ODE_ENGINE; }
