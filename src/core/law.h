/* The contact-law interface. The generic system (core) stores laws and the
 * steppers call them; the implementations live in src/contact/. */
#ifndef NSCD_CORE_LAW_H
#define NSCD_CORE_LAW_H

#include <stdint.h>

#include "nscd/contact_law.h"
#include "nscd/host.h"

/* How an impulsive law maps pre- to post-impact velocities. */
typedef enum nscd__impact_rule {
    NSCD__IMPACT_NEWTON = 0,  /* kinematic restitution, solved as an LCP */
    NSCD__IMPACT_POISSON = 1, /* kinetic restitution (compression + restitution phases) */
    NSCD__IMPACT_ROUTH = 2    /* Poisson + Coulomb friction, planar (Routh's method) */
} nscd__impact_rule;

/* What a compliant law remembers of one contact while it is active. */
typedef struct nscd__law_memory {
    double impact_velocity; /* penetration rate captured at onset, > 0 */
    double max_penetration; /* largest penetration reached so far */
    double aux[4];          /* law-specific state */
    /* Effective mass 1/(W_N M^-1 W_N') of the contact, set by the caller
     * before onset(); compliant laws whose damping depends on it (seed 001,
     * eq. 49) read it there. */
    double effective_mass;
} nscd__law_memory;

#define NSCD__LAW_PARAMS 8

typedef struct nscd__law_ops nscd__law_ops;

/* A law is a small value: copying the struct copies the law. */
struct nscd_contact_law {
    const nscd__law_ops *ops;
    double param[NSCD__LAW_PARAMS]; /* meaning defined by each law */
    int32_t option[4];              /* meaning defined by each law */
    nscd_allocator allocator;       /* what the handle was allocated with */
};

struct nscd__law_ops {
    const char *name;
    int32_t kind;        /* nscd_contact_law_kind */
    int32_t impact_rule; /* nscd__impact_rule, impulsive laws only */
    /* Impulsive laws: restitution coefficient used by the impact solver. */
    double (*restitution)(const nscd_contact_law *law);
    /* Compliant laws: called at onset with the penetration rate (> 0). */
    void (*onset)(const nscd_contact_law *law, double penetration_rate, nscd__law_memory *memory);
    /* Compliant laws: normal force (>= 0 pushes apart) for penetration
     * delta and its rate delta_dot (> 0 approaching). */
    double (*force)(const nscd_contact_law *law, const nscd__law_memory *memory, double delta,
                    double delta_dot);
    /* Compliant laws: penetration at which a contact begins; 0, or the
     * permanent indentation left by earlier contacts (seed 001, Sect. 3).
     * The force is signed: a contact separates when it reaches zero while
     * the penetration decreases (eq. 20), or when the penetration falls back
     * to onset_penetration(). */
    double (*onset_penetration)(const nscd_contact_law *law, const nscd__law_memory *memory);
    /* Compliant laws: called at separation with the penetration there; laws
     * with permanent indentation keep it in `memory`. */
    void (*separation)(const nscd_contact_law *law, nscd__law_memory *memory, double delta);
};

/* Allocates a handle holding `value`; used by every nscd_contact_law_create_*. */
nscd_status nscd__law_create(const nscd_contact_law *value, const nscd_allocator *allocator,
                             nscd_contact_law **law);

/* The impulsive laws whose one parameter is a restitution coefficient
 * (Newton, Poisson, Routh): validates e in [0, 1] and creates the handle. */
nscd_status nscd__restitution_law_create(const nscd__law_ops *ops, double e,
                                         const nscd_allocator *allocator, nscd_contact_law **law);
/* Their restitution() operation: the coefficient stored by the above. */
double nscd__restitution_coefficient(const nscd_contact_law *law);

#endif
