/* Narrow phase of cylinders (narrow.h). */
#include "collision/narrow.h"

void nscd__collide_half_space_cylinder(const nscd__collision_shape *a,
                                       const nscd__collision_shape *b, double margin,
                                       nscd__manifold *m) {
    (void)a, (void)b, (void)margin, (void)m;
}
void nscd__collide_box_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                double margin, nscd__manifold *m) {
    (void)a, (void)b, (void)margin, (void)m;
}
void nscd__collide_capsule_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                    double margin, nscd__manifold *m) {
    (void)a, (void)b, (void)margin, (void)m;
}
void nscd__collide_cylinder_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                     double margin, nscd__manifold *m) {
    (void)a, (void)b, (void)margin, (void)m;
}
