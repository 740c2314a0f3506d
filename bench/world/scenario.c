/* The initial grid and the bodies of bench_world (scenario.h). */
#include "scenario.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* splitmix64: a deterministic stream, the same on every machine and engine. */
static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double uniform(uint64_t *state) {
    return (double)(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [-1, 1). */
static double jitter(uint64_t *state) { return 2.0 * uniform(state) - 1.0; }

static const char *const SHAPE_NAMES[] = {"sphere",   "box",    "capsule",
                                          "cylinder", "convex", "mixed"};

const char *bw_shape_name(int32_t shape) {
    return shape >= 0 && shape <= BW_SHAPE_MIXED ? SHAPE_NAMES[shape] : NULL;
}

int32_t bw_shape_parse(const char *name) {
    for (int32_t k = 0; k <= BW_SHAPE_MIXED; ++k) {
        if (strcmp(name, SHAPE_NAMES[k]) == 0) {
            return k;
        }
    }
    return -1;
}

/* The regular icosahedron of circumradius 1: (0, +-1, +-phi) and its cyclic
 * permutations over sqrt(1 + phi^2). */
static void unit_icosahedron(double p[3 * BW_HULL_POINTS]) {
    const double phi = 0.5 * (1.0 + sqrt(5.0)), n = 1.0 / sqrt(1.0 + phi * phi);
    int i = 0;
    for (int axis = 0; axis < 3; ++axis) {
        for (int s = 0; s < 4; ++s, ++i) {
            const double v[3] = {0.0, (s & 1) ? -n : n, (s & 2) ? -phi * n : phi * n};
            for (int k = 0; k < 3; ++k) {
                p[3 * i + (k + axis) % 3] = v[k];
            }
        }
    }
}

void bw_hull_points(const double scale[3], double points[3 * BW_HULL_POINTS]) {
    unit_icosahedron(points);
    for (int i = 0; i < BW_HULL_POINTS; ++i) {
        for (int k = 0; k < 3; ++k) {
            points[3 * i + k] *= scale[k];
        }
    }
}

/* The faces: the triples of points two by two an edge apart (the edge of the
 * unit icosahedron is 1.0515), ordered counter-clockwise seen from outside. */
void bw_hull_faces(int faces[BW_HULL_FACES][3]) {
    double p[3 * BW_HULL_POINTS];
    unit_icosahedron(p);
    int n = 0;
    for (int a = 0; a < BW_HULL_POINTS; ++a) {
        for (int b = a + 1; b < BW_HULL_POINTS; ++b) {
            for (int c = b + 1; c < BW_HULL_POINTS; ++c) {
                const int pair[3][2] = {{a, b}, {b, c}, {a, c}};
                int edges = 0;
                for (int e = 0; e < 3; ++e) {
                    double d2 = 0.0;
                    for (int k = 0; k < 3; ++k) {
                        const double d = p[3 * pair[e][0] + k] - p[3 * pair[e][1] + k];
                        d2 += d * d;
                    }
                    edges += d2 < 1.2;
                }
                if (edges < 3 || n == BW_HULL_FACES) {
                    continue;
                }
                const double *A = &p[3 * a], *B = &p[3 * b], *C = &p[3 * c];
                const double u[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
                const double v[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
                const double normal[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                                          u[0] * v[1] - u[1] * v[0]};
                const int outward = normal[0] * A[0] + normal[1] * A[1] + normal[2] * A[2] > 0;
                faces[n][0] = a, faces[n][1] = outward ? b : c, faces[n][2] = outward ? c : b;
                ++n;
            }
        }
    }
}

/* Mass and principal moments of the scaled icosahedron: sum over the
 * tetrahedra (origin, face) of the second moments
 * |det| / 120 (sum_k v_k v_k^T + (sum_k v_k)(sum_k v_k)^T). */
static void hull_mass(const double scale[3], double density, double *mass, double inertia[3]) {
    double p[3 * BW_HULL_POINTS], second[3] = {0, 0, 0}, volume = 0.0;
    int faces[BW_HULL_FACES][3];
    bw_hull_points(scale, p);
    bw_hull_faces(faces);
    for (int f = 0; f < BW_HULL_FACES; ++f) {
        const double *a = &p[3 * faces[f][0]], *b = &p[3 * faces[f][1]], *c = &p[3 * faces[f][2]];
        const double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                           a[2] * (b[0] * c[1] - b[1] * c[0]);
        volume += det / 6.0;
        for (int k = 0; k < 3; ++k) {
            const double sum = a[k] + b[k] + c[k];
            second[k] += det / 120.0 * (a[k] * a[k] + b[k] * b[k] + c[k] * c[k] + sum * sum);
        }
    }
    *mass = density * volume;
    inertia[0] = density * (second[1] + second[2]);
    inertia[1] = density * (second[0] + second[2]);
    inertia[2] = density * (second[0] + second[1]);
}

/* Size, orientation and mass of body i of a scene (six numbers of `rng`
 * per body whatever its kind). Every body fits in a ball of radius r, so
 * the grid below never starts two bodies in contact. */
static void make_body(bw_body *b, int32_t kind, double r, double density, uint64_t *rng) {
    double u[6];
    for (int k = 0; k < 6; ++k) {
        u[k] = uniform(rng);
    }
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->orientation[0] = 1.0;
    if (kind != BW_SHAPE_SPHERE) { /* uniform random rotation (Shoemake) */
        const double s = sqrt(1.0 - u[3]), t = sqrt(u[3]);
        b->orientation[0] = t * cos(2.0 * PI * u[5]);
        b->orientation[1] = s * sin(2.0 * PI * u[4]);
        b->orientation[2] = s * cos(2.0 * PI * u[4]);
        b->orientation[3] = t * sin(2.0 * PI * u[5]);
    }
    switch (kind) {
    case BW_SHAPE_BOX: {
        for (int k = 0; k < 3; ++k) {
            b->half_extents[k] = r / sqrt(3.0) * (0.6 + 0.4 * u[k]);
        }
        const double *h = b->half_extents;
        b->mass = density * 8.0 * h[0] * h[1] * h[2];
        for (int k = 0; k < 3; ++k) {
            const double a = h[(k + 1) % 3], c = h[(k + 2) % 3];
            b->inertia[k] = b->mass / 3.0 * (a * a + c * c);
        }
        break;
    }
    case BW_SHAPE_CAPSULE: {
        const double a = r * (0.3 + 0.2 * u[0]), h = r - a, length = 2.0 * h;
        b->radius = a, b->half_height = h;
        const double cylinder = density * PI * a * a * length;
        const double ends = density * 4.0 / 3.0 * PI * a * a * a;
        b->mass = cylinder + ends;
        b->inertia[2] = cylinder * a * a / 2.0 + ends * 0.4 * a * a;
        b->inertia[0] = b->inertia[1] =
            cylinder * (length * length / 12.0 + a * a / 4.0) +
            ends * (0.4 * a * a + length * length / 4.0 + 3.0 * length * a / 8.0);
        break;
    }
    case BW_SHAPE_CYLINDER: {
        const double a = r * (0.45 + 0.25 * u[0]);
        const double h = sqrt(r * r - a * a) * (0.6 + 0.4 * u[1]);
        b->radius = a, b->half_height = h;
        b->mass = density * PI * a * a * 2.0 * h;
        b->inertia[2] = b->mass * a * a / 2.0;
        b->inertia[0] = b->inertia[1] = b->mass * (3.0 * a * a + 4.0 * h * h) / 12.0;
        break;
    }
    case BW_SHAPE_CONVEX:
        for (int k = 0; k < 3; ++k) {
            b->scale[k] = r * (0.6 + 0.4 * u[k]);
        }
        hull_mass(b->scale, density, &b->mass, b->inertia);
        break;
    default: /* sphere */
        b->radius = r;
        b->mass = density * 4.0 / 3.0 * PI * r * r * r;
        b->inertia[0] = b->inertia[1] = b->inertia[2] = 0.4 * b->mass * r * r;
        break;
    }
}

int bw_scenario_init(bw_scenario *s, int32_t bodies, int32_t sweeps, double dt, double friction,
                     int32_t shape) {
    memset(s, 0, sizeof *s);
    if (bw_shape_name(shape) == NULL) {
        return -1;
    }
    s->bodies = bodies;
    s->sweeps = sweeps;
    s->dt = dt;
    s->shape = shape;
    /* Bullet's broad phase fattens every AABB by 5 cm (DBVT_BP_MARGIN, fixed
     * at compile time: Bullet expects bodies of 0.05 to 10 m); with 5 mm
     * spheres every body would pair with every other. At r = 0.5 m that
     * margin is 0.1 r, the contact margin given to every engine. */
    s->radius = 0.5;
    s->density = 1000.0;
    s->friction = friction;
    s->error_reduction = 0.2;
    s->gravity = 9.81;
    /* A body-centred grid: square layers of spacing 2.2 r, every other layer
     * shifted by half a spacing so that each sphere sits above the hollow of
     * four, 0.2 r apart from them (layer distance 1.556 r), with a jitter of
     * +-0.05 r on each axis: no two spheres (nor a sphere and a wall) overlap
     * at the start, the spheres drop 0.1 r into their hollows, push the
     * layers below apart against the walls and settle within some 50 steps
     * into a dense pile with four to five contacts per sphere (a simple cubic
     * grid instead buckles into an avalanche that lasts hundreds of steps).
     * The other kinds start on the same grid (each fits in the ball of
     * radius r of a sphere). */
    const double spacing = 2.2 * s->radius, amplitude = 0.05 * s->radius;
    const double layer_distance = sqrt(spacing * spacing - 0.5 * spacing * spacing);
    const int32_t side = (int32_t)ceil(sqrt((double)bodies / BW_LAYERS));
    s->box[0] = s->box[1] = side * spacing;
    s->positions = malloc(3 * (size_t)bodies * sizeof *s->positions);
    s->body = malloc((size_t)bodies * sizeof *s->body);
    if (s->positions == NULL || s->body == NULL) {
        bw_scenario_free(s);
        return -1;
    }
    uint64_t rng = 20261122u;
    int32_t i = 0;
    for (int32_t layer = 0; i < bodies; ++layer) {
        const int32_t shifted = layer % 2, n = side - shifted;
        for (int32_t cell = 0; cell < n * n && i < bodies; ++cell, ++i) {
            const double grid[3] = {(cell % n + 0.5 + 0.5 * shifted) * spacing,
                                    (cell / n + 0.5 + 0.5 * shifted) * spacing,
                                    s->radius + 0.1 * s->radius + layer * layer_distance};
            for (int k = 0; k < 3; ++k) {
                s->positions[3 * i + k] = grid[k] + amplitude * jitter(&rng);
            }
        }
    }
    /* The bodies from their own stream (the grid's is that of the sphere
     * scene before the shapes came); the mixed scene takes spheres, boxes,
     * capsules and cylinders in turn, a quarter each, as
     * examples/mixed_pile.c draws them. */
    uint64_t shapes = 20261129u;
    for (i = 0; i < bodies; ++i) {
        const int32_t kind = shape == BW_SHAPE_MIXED ? i % 4 : shape;
        make_body(&s->body[i], kind, s->radius, s->density, &shapes);
    }
    return 0;
}

void bw_scenario_free(bw_scenario *s) {
    free(s->positions);
    free(s->body);
    s->positions = NULL;
    s->body = NULL;
}
