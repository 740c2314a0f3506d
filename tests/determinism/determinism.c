/* Determinism: a few representative models run through the public API, each
 * printing one line "name status hash", the hash an FNV-1a (64 bits) of the
 * bytes of its final state. check_determinism.py runs this program under
 * several OpenBLAS kernels and thread counts (OPENBLAS_CORETYPE,
 * OPENBLAS_NUM_THREADS) and compares the hashes per model: a model whose
 * hash changes with the kernel depends on the last bits of a BLAS routine
 * (docs/testing.md, "Portability").
 *
 * The models: a world pile (spheres and boxes dropped on a floor, the world's
 * block Gauss-Seidel), a short granular channel (examples/granular_channel at
 * k = 5), the rigid slider-crank with clearance (Table 1 of seed 003, the
 * midpoint rule), the double pendulum of seed 000 hitting the floor (the
 * event-driven stepper, Routh's impact law) and a chain of four bodies held
 * by revolute joints (the world under the time stepper).
 *
 * Usage: determinism [model ...]   (no argument: every model) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "granular_scene.h"
#include "slider_crank_model.h"
#include <nscd/nscd.h>

#define PI 3.14159265358979323846

/* ------------------------------------------------------------ the hash */

typedef struct hash {
    uint64_t value;
} hash;

static hash hash_start(void) { return (hash){14695981039346656037ULL}; /* FNV-1a offset basis */ }

static void hash_bytes(hash *h, const void *data, size_t size) {
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i) {
        h->value ^= p[i];
        h->value *= 1099511628211ULL; /* FNV prime */
    }
}

/* ------------------------------------------------------------ worlds */

/* Every body's position, orientation, velocity and angular velocity. */
static nscd_status hash_world(const nscd_world *world, hash *h) {
    int32_t capacity = nscd_world_body_count(world), count = 0;
    size_t n = (size_t)(capacity > 0 ? capacity : 1);
    double *x = malloc(n * 13 * sizeof(double));
    uint64_t *user_ids = malloc(n * sizeof(uint64_t));
    nscd_status st = x == NULL || user_ids == NULL ? NSCD_ERR_OUT_OF_MEMORY : NSCD_OK;
    if (st == NSCD_OK) {
        st = nscd_world_get_bodies(world, capacity, &count, NULL, user_ids, x, x + 3 * n, x + 7 * n,
                                   x + 10 * n);
    }
    if (st == NSCD_OK) {
        hash_bytes(h, user_ids, (size_t)count * sizeof(uint64_t));
        hash_bytes(h, x, (size_t)count * 3 * sizeof(double));
        hash_bytes(h, x + 3 * n, (size_t)count * 4 * sizeof(double));
        hash_bytes(h, x + 7 * n, (size_t)count * 3 * sizeof(double));
        hash_bytes(h, x + 10 * n, (size_t)count * 3 * sizeof(double));
    }
    free(x);
    free(user_ids);
    return st;
}

/* 27 spheres and 8 boxes dropped on a floor, 1 s with the world's step. */
static nscd_status world_pile(hash *h) {
    nscd_world_desc wd;
    nscd_world_desc_init(&wd, sizeof wd);
    wd.dt = 1e-3;
    wd.default_friction = 0.4;
    nscd_world *world = NULL;
    nscd_status st = nscd_world_create(&wd, &world);
    const double origin[3] = {0.0, 0.0, 0.0}, up[3] = {0.0, 0.0, 1.0};
    nscd_body_id id = 0;
    if (st == NSCD_OK) {
        st = nscd_world_add_half_space(world, origin, up, NULL, NULL, &id);
    }
    const double r = 0.01;
    nscd_shape_desc sphere, box;
    nscd_shape_desc_init(&sphere, sizeof sphere);
    sphere.radius = r;
    nscd_shape_desc_init(&box, sizeof box);
    box.type = NSCD_SHAPE_BOX;
    box.half_extents[0] = 1.2 * r, box.half_extents[1] = 0.8 * r, box.half_extents[2] = 0.6 * r;
    for (int i = 0; i < 35 && st == NSCD_OK; ++i) { /* a 3 x 3 x 3 block, boxes on top */
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        b.density = 2650.0;
        b.position[0] = (i % 3) * 2.1 * r + 0.1 * r * (i / 9);
        b.position[1] = (i / 3 % 3) * 2.1 * r;
        b.position[2] = r + 0.001 + (i / 9) * 2.1 * r;
        if (i >= 27) { /* tilted boxes, 2 x 2 x 2 above the spheres */
            int k = i - 27;
            b.position[0] = 0.5 * r + (k % 2) * 2.6 * r;
            b.position[1] = 0.5 * r + (k / 2 % 2) * 2.6 * r;
            b.position[2] = 7.0 * r + (k / 4) * 2.0 * r;
            double half = 0.5 * (0.2 + 0.1 * k);
            b.orientation[0] = cos(half), b.orientation[1] = sin(half) * 0.6;
            b.orientation[2] = sin(half) * 0.8, b.orientation[3] = 0.0;
        }
        b.user_id = (uint64_t)i + 1;
        st = nscd_world_add_body(world, &b, i < 27 ? &sphere : &box, 1, &id);
    }
    nscd_world_step_report report = {.struct_size = sizeof report};
    for (int k = 0; k < 1000 && st == NSCD_OK; ++k) {
        st = nscd_world_step(world, &report);
    }
    if (st == NSCD_OK) {
        st = hash_world(world, h);
    }
    nscd_world_destroy(world);
    return st;
}

/* The channel of examples/granular_channel (k = 5, Coulomb, seed 1): 200 steps. */
static nscd_status granular_channel(hash *h) {
    channel_params p;
    channel_params_init(&p, 5.0, 10, NSCD_FRICTION_COULOMB, 1);
    channel_scene scene;
    nscd_status st = channel_scene_create(&scene, &p);
    if (st != NSCD_OK) {
        return st;
    }
    nscd_world_step_report report = {.struct_size = sizeof report};
    for (int k = 0; k < 200 && st == NSCD_OK; ++k) {
        st = channel_scene_step(&scene, &report);
    }
    if (st == NSCD_OK) {
        st = hash_world(scene.world, h);
    }
    channel_scene_destroy(&scene);
    return st;
}

/* ------------------------------------------------------------ systems */

static nscd_status hash_system(const nscd_system *system, int32_t n, hash *h) {
    double t, q[8], v[8];
    nscd_status st = nscd_system_get_state(system, &t, q, v);
    if (st == NSCD_OK) {
        hash_bytes(h, &t, sizeof t);
        hash_bytes(h, q, (size_t)n * sizeof(double));
        hash_bytes(h, v, (size_t)n * sizeof(double));
    }
    return st;
}

/* Table 1 of seed 003 (c = 1 mm, 150 rad/s, e_N = 0.4, mu = 0.01), the
 * midpoint rule at dt = 1e-5 over 20 ms (the first impacts), AUTO solver. */
static nscd_status slider_crank(hash *h) {
    const slider_crank_case *model = slider_crank_case_find("table1");
    nscd_system *system = NULL;
    nscd_status st = slider_crank_system_create(model, &system);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_MIDPOINT;
    o.dt = 1e-5;
    nscd_time_stepping *ts = NULL;
    if (st == NSCD_OK) {
        st = nscd_time_stepping_create(system, &o, &ts);
    }
    if (st == NSCD_OK) {
        st = nscd_time_stepping_advance(ts, 0.02, NULL);
    }
    if (st == NSCD_OK) {
        st = hash_system(system, SLIDER_CRANK_DOF, h);
    }
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(system);
    return st;
}

/* The double pendulum of seed 000 (examples/double_pendulum_routh.c: the same
 * model): rod OA about O, body 2 (rod and disk) about A, the disk hitting the
 * floor at depth D; q = (psi1, psi2). */
typedef struct pendulum {
    double m1, m2, l1, l2, r, lc, I1, I2, D, g, mu;
} pendulum;

static nscd_status pendulum_mass(void *user, const double *q, double *A) {
    const pendulum *p = user;
    A[0] = p->I1 + p->l1 * p->l1 * (p->m1 / 4.0 + p->m2);
    A[1] = A[2] = p->l1 * p->lc * p->m2 * cos(q[0] - q[1]);
    A[3] = p->I2 + p->lc * p->lc * p->m2;
    return NSCD_OK;
}

static nscd_status pendulum_forces(void *user, double t, const double *q, const double *v,
                                   double *f) {
    (void)t;
    const pendulum *p = user;
    double s12 = sin(q[0] - q[1]);
    f[0] = -p->l1 * p->lc * p->m2 * s12 * v[1] * v[1] -
           (p->m1 / 2.0 + p->m2) * p->g * p->l1 * sin(q[0]);
    f[1] = p->l1 * p->lc * p->m2 * s12 * v[0] * v[0] - p->m2 * p->g * p->lc * sin(q[1]);
    return NSCD_OK;
}

static nscd_status pendulum_floor(void *user, int32_t index, double t, const double *q, double *gap,
                                  double *wn, double *wt) {
    (void)index, (void)t;
    const pendulum *p = user;
    *gap = p->D - p->l1 * cos(q[0]) - (p->l2 + p->r) * cos(q[1]) - p->r;
    wn[0] = p->l1 * sin(q[0]);
    wn[1] = (p->l2 + p->r) * sin(q[1]);
    if (wt != NULL) {
        wt[0] = -p->l1 * cos(q[0]);
        wt[1] = -(p->r + (p->l2 + p->r) * cos(q[1]));
    }
    return NSCD_OK;
}

/* mu = 0.15, k = 0.9, from (140 deg, -90 deg), event-driven to 4 s. */
static nscd_status double_pendulum(hash *h) {
    pendulum p = {3.2, 3.8, 0.5, 0.6, 0.05, 0.3627, 6.76e-2, 0.164, 0.9, 9.81, 0.15};
    nscd_contact_law *law = NULL;
    nscd_status st = nscd_contact_law_create_routh(0.9, NULL, &law);
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 2;
    desc.n_contacts = 1;
    desc.user = &p;
    desc.mass = pendulum_mass;
    desc.forces = pendulum_forces;
    desc.contact = pendulum_floor;
    nscd_system *system = NULL;
    if (st == NSCD_OK) {
        st = nscd_system_create(&desc, &system);
    }
    if (st == NSCD_OK) {
        nscd_contact_desc contact;
        nscd_contact_desc_init(&contact, sizeof contact);
        contact.law = law;
        contact.friction = p.mu;
        contact.n_tangent = 1;
        st = nscd_system_set_contact(system, 0, &contact);
    }
    nscd_contact_law_destroy(law);
    const double q0[2] = {140.0 * PI / 180.0, -PI / 2.0}, v0[2] = {1.2, -0.5};
    if (st == NSCD_OK) {
        st = nscd_system_set_state(system, 0.0, q0, v0);
    }
    nscd_event_driven_options o;
    nscd_event_driven_options_init(&o, sizeof o);
    nscd_event_driven *ed = NULL;
    if (st == NSCD_OK) {
        st = nscd_event_driven_create(system, &o, &ed);
    }
    if (st == NSCD_OK) {
        st = nscd_event_driven_advance(ed, 4.0, NULL);
    }
    if (st == NSCD_OK) {
        st = hash_system(system, 2, h);
    }
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(system);
    return st;
}

/* Four rods (0.5 m, 1 kg) in a chain along x, the first pinned to the
 * ground, each joined to the next by a revolute joint about z; gravity -y,
 * released horizontal: the midpoint rule at dt = 1e-3 over 1 s. */
static nscd_status joint_chain(hash *h) {
    enum { LINKS = 4 };
    const double half = 0.25;
    nscd_world_desc wd;
    nscd_world_desc_init(&wd, sizeof wd);
    wd.gravity[0] = 0.0, wd.gravity[1] = -9.81, wd.gravity[2] = 0.0;
    nscd_world *world = NULL;
    nscd_status st = nscd_world_create(&wd, &world);
    nscd_body_id link[LINKS] = {0};
    for (int i = 0; i < LINKS && st == NSCD_OK; ++i) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        b.mass = 1.0;
        b.inertia[0] = 1e-3;
        b.inertia[1] = b.inertia[2] = 4.0 * half * half / 12.0;
        b.position[0] = (2 * i + 1) * half;
        b.user_id = (uint64_t)i + 1;
        st = nscd_world_add_body(world, &b, NULL, 0, &link[i]);
    }
    for (int i = 0; i < LINKS && st == NSCD_OK; ++i) {
        nscd_joint_desc j; /* frame A on the previous link's end (or the ground), B on link i */
        nscd_joint_desc_init(&j, sizeof j);
        j.type = NSCD_JOINT_REVOLUTE;
        j.body_a = i == 0 ? NSCD_BODY_NULL : link[i - 1];
        j.position_a[0] = i == 0 ? 0.0 : half;
        j.body_b = link[i];
        j.position_b[0] = -half;
        nscd_joint_id id = 0;
        st = nscd_world_add_joint(world, &j, &id);
    }
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_MIDPOINT;
    o.dt = 1e-3;
    nscd_time_stepping *ts = NULL;
    if (st == NSCD_OK) {
        st = nscd_time_stepping_create_world(world, &o, &ts);
    }
    if (st == NSCD_OK) {
        st = nscd_time_stepping_advance(ts, 1.0, NULL);
    }
    if (st == NSCD_OK) {
        st = hash_world(world, h);
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(world);
    return st;
}

/* ------------------------------------------------------------ main */

static const struct {
    const char *name;
    nscd_status (*run)(hash *h);
} models[] = {
    {"world_pile", world_pile},     {"granular_channel", granular_channel},
    {"slider_crank", slider_crank}, {"double_pendulum", double_pendulum},
    {"joint_chain", joint_chain},
};

int main(int argc, char **argv) {
    const int n_models = (int)(sizeof models / sizeof models[0]);
    int failed = 0;
    for (int m = 0; m < n_models; ++m) {
        int wanted = argc == 1;
        for (int a = 1; a < argc; ++a) {
            wanted |= strcmp(argv[a], models[m].name) == 0;
        }
        if (!wanted) {
            continue;
        }
        hash h = hash_start();
        nscd_status st = models[m].run(&h);
        printf("%s %s %016llx\n", models[m].name, nscd_status_string(st),
               (unsigned long long)h.value);
        fflush(stdout);
        failed |= st != NSCD_OK;
    }
    return failed;
}
