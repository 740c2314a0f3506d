/* The scenario of bench_world: N bodies poured into an open box (a floor and
 * four walls) from a grid with a small deterministic jitter. The bodies are
 * spheres (the default scene) or, with --shape, boxes, capsules, cylinders,
 * convex polyhedra or a mixed pile: one definition for every engine, sizes
 * and orientations drawn here from a fixed seed. */
#ifndef BENCH_WORLD_SCENARIO_H
#define BENCH_WORLD_SCENARIO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Kinds of body (bw_body::kind) and of scene (bw_scenario::shape). */
enum {
    BW_SHAPE_SPHERE = 0,
    BW_SHAPE_BOX = 1,
    BW_SHAPE_CAPSULE = 2,
    BW_SHAPE_CYLINDER = 3,
    BW_SHAPE_CONVEX = 4,
    BW_SHAPE_MIXED = 5 /* scenes only: spheres, boxes, capsules, cylinders in turn */
};

/* Name of a kind ("sphere", ...); NULL when out of range. */
const char *bw_shape_name(int32_t shape);
/* The kind of a name; -1 when unknown. */
int32_t bw_shape_parse(const char *name);

/* The convex polyhedron of the convex scene: a regular icosahedron of
 * circumradius 1 (12 vertices, 20 triangles, counter-clockwise seen from
 * outside) scaled by bw_body::scale along its axes; an affine image keeps
 * its faces. */
#define BW_HULL_POINTS 12
#define BW_HULL_FACES 20
/* The faces: three point indices each. */
void bw_hull_faces(int faces[BW_HULL_FACES][3]);
/* The 12 points (x, y, z each) of a body's hull, in its shape frame. */
void bw_hull_points(const double scale[3], double points[3 * BW_HULL_POINTS]);

/** One body: its kind, size, orientation and mass properties (the shape
 *  frame is the body frame, its origin the centre of mass, its axes the
 *  principal axes; capsules and cylinders along z). */
typedef struct bw_body {
    int32_t kind;           /* BW_SHAPE_SPHERE ... BW_SHAPE_CONVEX */
    double radius;          /* sphere, capsule, cylinder */
    double half_height;     /* capsule (of its cylinder part), cylinder */
    double half_extents[3]; /* box */
    double scale[3];        /* convex: semi-axes of the scaled icosahedron */
    double orientation[4];  /* unit quaternion (w, x, y, z) */
    double mass, inertia[3];
} bw_body;

typedef struct bw_scenario {
    int32_t bodies;         /* number of bodies */
    int32_t sweeps;         /* solver iterations per step, every engine */
    double dt;              /* time step, s */
    double radius;          /* of every sphere; every other body fits in a ball of it, m */
    double density;         /* kg/m^3 */
    double friction;        /* mu of every contact */
    double error_reduction; /* ERP: a penetration d is corrected at ERP d / dt */
    double gravity;         /* m/s^2 along -z */
    double box[2];          /* inner size of the box in x and y (floor z = 0,
                               walls at x = 0, x = box[0], y = 0, y = box[1]) */
    double *positions;      /* 3 * bodies initial centres (owned) */
    int32_t shape;          /* the scene's kind, BW_SHAPE_* */
    bw_body *body;          /* `bodies` bodies (owned) */
} bw_scenario;

/* Fills the scenario for `bodies` bodies of kind `shape` (radius 0.5 m,
 * density 1000, grid of LAYERS layers); 0 on success, -1 when out of memory
 * or `shape` is unknown. */
int bw_scenario_init(bw_scenario *s, int32_t bodies, int32_t sweeps, double dt, double friction,
                     int32_t shape);
void bw_scenario_free(bw_scenario *s);

/* Layers of the initial grid: the floor area grows with N so that the pile
 * has the same depth (and contacts per body) at every size. */
#define BW_LAYERS 10

#ifdef __cplusplus
}
#endif

#endif /* BENCH_WORLD_SCENARIO_H */
