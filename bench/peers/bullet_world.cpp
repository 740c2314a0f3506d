/* bench_world's Bullet engine (Bullet 3, the double-precision build when
 * found): the scenario in a btDiscreteDynamicsWorld with btDbvtBroadphase,
 * btCollisionDispatcher over btDefaultCollisionConfiguration and the
 * btSequentialImpulseConstraintSolver (projected Gauss-Seidel on
 * 1D constraints, warm start, Bullet's default solver mode), with
 * m_numIterations = sweeps, m_erp = the scenario's error reduction and split
 * impulse off (so that penetrations are corrected by Baumgarte like nscd and
 * ODE). Spheres are one shared btSphereShape, the other bodies one shape
 * each (btBoxShape, btCapsuleShapeZ, btCylinderShapeZ, btConvexHullShape of
 * the scenario's icosahedron with its polyhedral features for face
 * clipping), with the scenario's mass and principal inertia (Bullet's own
 * calculateLocalInertia approximates capsules and hulls by their bounding
 * box), never deactivated. Bullet's default collision margin (0.04 m) is
 * kept: inside the box and the cylinder (their edges are rounded by it), the
 * capsule's radius, but on top of the hull's points (Bullet's hull is 0.04 m
 * larger than the others'); the floor and
 * the walls are static btStaticPlaneShape bodies. Bullet multiplies the two
 * bodies' frictions: every body has sqrt(mu), so every contact has mu (a
 * pyramid of two 1D friction rows bounded by mu times the normal impulse).
 * gContactBreakingThreshold = 0.1 r (AABB inflation and the distance up to
 * which manifold points are kept; nscd's contact margin).
 * One step: stepSimulation(dt, 0) (no substeps, no interpolation).
 * Memory is counted through btAlignedAllocSetCustom (Bullet's objects and
 * arrays go through btAlignedAlloc). */
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "counting.h"
#include "engine.h"

namespace {

/* Bullet's free hook gets no size: keep it in a 16-byte header. */
const size_t HEADER = 16;

void *counted_alloc(size_t size) {
    unsigned char *p = static_cast<unsigned char *>(std::malloc(size + HEADER));
    if (p == nullptr) {
        return nullptr;
    }
    *reinterpret_cast<size_t *>(p) = size;
    bw_count_allocate(size);
    return p + HEADER;
}

void counted_free(void *block) {
    if (block == nullptr) {
        return;
    }
    unsigned char *p = static_cast<unsigned char *>(block) - HEADER;
    bw_count_release(*reinterpret_cast<size_t *>(p));
    std::free(p);
}

struct bullet_engine {
    btDefaultCollisionConfiguration *configuration = nullptr;
    btCollisionDispatcher *dispatcher = nullptr;
    btDbvtBroadphase *broadphase = nullptr;
    btSequentialImpulseConstraintSolver *solver = nullptr;
    btDiscreteDynamicsWorld *world = nullptr;
    btSphereShape *sphere = nullptr;
    std::vector<btCollisionShape *> planes; /* and the shapes of non-spheres */
    std::vector<btRigidBody *> bodies;      /* walls first, then the spheres */
    int32_t walls = 0;
    double dt = 0.0;
};

void destroy(bullet_engine *e) {
    if (e->world != nullptr) {
        for (btRigidBody *body : e->bodies) {
            e->world->removeRigidBody(body);
        }
    }
    for (btRigidBody *body : e->bodies) {
        delete body;
    }
    for (btCollisionShape *plane : e->planes) {
        delete plane;
    }
    delete e->sphere;
    delete e->world;
    delete e->solver;
    delete e->broadphase;
    delete e->dispatcher;
    delete e->configuration;
    delete e;
}

/* A body; `inertia` (principal, body frame) replaces Bullet's own when its
 * x is positive. */
void add_body(bullet_engine *e, btCollisionShape *shape, double mass, const btVector3 &position,
              double friction, const btQuaternion &orientation = btQuaternion::getIdentity(),
              const btVector3 &given_inertia = btVector3(0, 0, 0)) {
    btVector3 inertia(0, 0, 0);
    if (mass > 0) {
        shape->calculateLocalInertia(mass, inertia);
    }
    if (given_inertia.x() > 0) {
        inertia = given_inertia;
    }
    btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
    info.m_startWorldTransform.setIdentity();
    info.m_startWorldTransform.setOrigin(position);
    info.m_startWorldTransform.setRotation(orientation);
    info.m_friction = friction;
    info.m_restitution = 0;
    btRigidBody *body = new btRigidBody(info);
    if (mass > 0) {
        body->setActivationState(DISABLE_DEACTIVATION);
    }
    e->bodies.push_back(body);
    e->world->addRigidBody(body);
}

void build(bullet_engine *e, const bw_scenario *s) {
    /* The distance up to which manifold points are kept, which also inflates
     * every AABB: nscd's contact margin, 0.1 r, instead of Bullet's default
     * 2 cm (a process-wide variable of Bullet). */
    gContactBreakingThreshold = 0.1 * s->radius;
    e->configuration = new btDefaultCollisionConfiguration();
    e->dispatcher = new btCollisionDispatcher(e->configuration);
    e->broadphase = new btDbvtBroadphase();
    e->solver = new btSequentialImpulseConstraintSolver();
    e->world =
        new btDiscreteDynamicsWorld(e->dispatcher, e->broadphase, e->solver, e->configuration);
    e->world->setGravity(btVector3(0, 0, -s->gravity));
    btContactSolverInfo &info = e->world->getSolverInfo();
    info.m_numIterations = s->sweeps;
    info.m_erp = s->error_reduction;
    info.m_splitImpulse = 0;
    e->dt = s->dt;
    const double mu = std::sqrt(s->friction);
    /* btStaticPlaneShape(n, c): the solid is n . x < c. */
    const double planes[5][4] = {
        {0, 0, 1, 0}, {1, 0, 0, 0}, {-1, 0, 0, -s->box[0]}, {0, 1, 0, 0}, {0, -1, 0, -s->box[1]}};
    for (const auto &p : planes) {
        btCollisionShape *plane = new btStaticPlaneShape(btVector3(p[0], p[1], p[2]), p[3]);
        e->planes.push_back(plane);
        add_body(e, plane, 0.0, btVector3(0, 0, 0), mu);
    }
    e->walls = static_cast<int32_t>(e->bodies.size());
    e->sphere = new btSphereShape(s->radius);
    const double mass =
        s->density * 4.0 / 3.0 * 3.14159265358979323846 * s->radius * s->radius * s->radius;
    double points[3 * BW_HULL_POINTS];
    for (int32_t i = 0; i < s->bodies; ++i) {
        const double *x = &s->positions[3 * i];
        const bw_body &b = s->body[i];
        if (b.kind == BW_SHAPE_SPHERE) {
            add_body(e, e->sphere, mass, btVector3(x[0], x[1], x[2]), mu);
            continue;
        }
        btCollisionShape *shape = nullptr;
        switch (b.kind) {
        case BW_SHAPE_BOX:
            shape =
                new btBoxShape(btVector3(b.half_extents[0], b.half_extents[1], b.half_extents[2]));
            break;
        case BW_SHAPE_CAPSULE: shape = new btCapsuleShapeZ(b.radius, 2 * b.half_height); break;
        case BW_SHAPE_CYLINDER:
            shape = new btCylinderShapeZ(btVector3(b.radius, b.radius, b.half_height));
            break;
        default: {
            bw_hull_points(b.scale, points);
            btConvexHullShape *hull = new btConvexHullShape();
            for (int k = 0; k < BW_HULL_POINTS; ++k) {
                hull->addPoint(btVector3(points[3 * k], points[3 * k + 1], points[3 * k + 2]),
                               k + 1 == BW_HULL_POINTS);
            }
            hull->initializePolyhedralFeatures();
            shape = hull;
            break;
        }
        }
        e->planes.push_back(shape);
        const btQuaternion q(b.orientation[1], b.orientation[2], b.orientation[3],
                             b.orientation[0]);
        add_body(e, shape, b.mass, btVector3(x[0], x[1], x[2]), mu, q,
                 btVector3(b.inertia[0], b.inertia[1], b.inertia[2]));
    }
}

/* Bullet's allocator hooks are process-wide: set them once, before Bullet
 * allocates anything. */
bool hooks_set = false;

void *bullet_create(const bw_scenario *s, char *error, size_t error_size) {
    if (!hooks_set) {
        btAlignedAllocSetCustom(counted_alloc, counted_free);
        hooks_set = true;
    }
    bullet_engine *e = new (std::nothrow) bullet_engine();
    if (e == nullptr) {
        std::snprintf(error, error_size, "out of memory");
        return nullptr;
    }
    try {
        build(e, s);
    } catch (const std::bad_alloc &) {
        std::snprintf(error, error_size, "out of memory");
        destroy(e);
        return nullptr;
    }
    return e;
}

int bullet_step(void *engine, bw_step_stats *stats, char *error, size_t error_size) {
    bullet_engine *e = static_cast<bullet_engine *>(engine);
    if (e->world->stepSimulation(e->dt, 0) != 1) {
        std::snprintf(error, error_size, "stepSimulation took no step");
        return -1;
    }
    /* The manifolds of this step's collision detection: what the solver saw. */
    int32_t contacts = 0;
    double penetration = 0.0;
    const int manifolds = e->dispatcher->getNumManifolds();
    for (int m = 0; m < manifolds; ++m) {
        const btPersistentManifold *manifold = e->dispatcher->getManifoldByIndexInternal(m);
        const int points = manifold->getNumContacts();
        contacts += points;
        for (int p = 0; p < points; ++p) {
            const double depth = -manifold->getContactPoint(p).getDistance();
            if (depth > penetration) {
                penetration = depth;
            }
        }
    }
    stats->contacts = contacts;
    stats->max_penetration = penetration;
    return 0;
}

int bullet_state(void *engine, double *positions, double *velocities, double *angular_velocities) {
    bullet_engine *e = static_cast<bullet_engine *>(engine);
    const size_t n = e->bodies.size() - static_cast<size_t>(e->walls);
    for (size_t i = 0; i < n; ++i) {
        const btRigidBody *body = e->bodies[static_cast<size_t>(e->walls) + i];
        const btVector3 &x = body->getWorldTransform().getOrigin();
        const btVector3 &v = body->getLinearVelocity();
        const btVector3 &w = body->getAngularVelocity();
        for (int k = 0; k < 3; ++k) {
            positions[3 * i + k] = x[k];
            velocities[3 * i + k] = v[k];
            angular_velocities[3 * i + k] = w[k];
        }
    }
    return 0;
}

void bullet_destroy(void *engine) {
    if (engine != nullptr) {
        destroy(static_cast<bullet_engine *>(engine));
    }
}

const bw_engine BULLET_ENGINE = {"bullet",
                                 bullet_create,
                                 bullet_step,
                                 bullet_state,
                                 bullet_destroy,
#ifdef BT_USE_DOUBLE_PRECISION
                                 "btAlignedAllocSetCustom hooks (double-precision Bullet)"
#else
                                 "btAlignedAllocSetCustom hooks (single-precision Bullet)"
#endif
};

} // namespace

extern "C" const bw_engine *bw_engine_bullet(void) { return &BULLET_ENGINE; }
