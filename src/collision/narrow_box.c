/* Narrow phase of boxes (narrow.h). */
#include "collision/narrow.h"

void nscd__collide_half_space_box(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                  double margin, nscd__manifold *m) {
    (void)a, (void)b, (void)margin, (void)m;
}
void nscd__collide_box_box(const nscd__collision_shape *a, const nscd__collision_shape *b,
                           double margin, nscd__manifold *m) {
    (void)a, (void)b, (void)margin, (void)m;
}
void nscd__collide_box_capsule(const nscd__collision_shape *a, const nscd__collision_shape *b,
                               double margin, nscd__manifold *m) {
    (void)a, (void)b, (void)margin, (void)m;
}
