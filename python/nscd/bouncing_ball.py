"""A ball dropped from h0 onto a floor with Newton restitution e, built on
System + ContactLaw + EventDriven (the Python twin of examples/bouncing_ball.c).

A demo, not part of the package namespace: `import nscd` does not import it;
use ``from nscd.bouncing_ball import bouncing_ball``."""
import collections
import math
import sys
import types

from ._deprecated import warn
from .event_driven import EventDriven, EventType
from .system import ContactLaw, System

Impact = collections.namedtuple("Impact", ["t", "v_before", "v_after"])
BouncingBall = collections.namedtuple("BouncingBall", ["impacts", "rest_time", "t_end", "stats"])


def analytic_rest_time(h0, e, g=9.81):
    """t_inf = t1 + 2 v1 e / (g (1 - e)): the sum of the geometric series of
    flight times after the first impact at t1 = sqrt(2 h0 / g), v1 = g t1."""
    t1 = math.sqrt(2.0 * h0 / g)
    if e >= 1.0:
        return math.inf
    return t1 + 2.0 * (g * t1) * e / (g * (1.0 - e))


def bouncing_ball(h0, e, g=9.81, t_end=None, **options):
    """Simulates the ball (unit mass, coordinate q = height, gap g(q) = q).

    Returns BouncingBall(impacts=[Impact(t, v_before, v_after), ...],
    rest_time, t_end, stats): rest_time is the time at which the contact became
    persistent (None if it did not within t_end). t_end defaults to 1.5 times
    the analytic rest time (required when e = 1). Other keyword arguments go to
    EventDriven (stepper options)."""
    if t_end is None:
        t_rest = analytic_rest_time(h0, e, g)
        if not math.isfinite(t_rest):
            raise ValueError("t_end is required when e >= 1 (the ball never rests)")
        t_end = 1.5 * t_rest + 0.1
    law = ContactLaw.newton(e)
    system = System(
        n_dof=1,
        n_contacts=1,
        mass=lambda q: [1.0],
        forces=lambda t, q, v: [-g],
        contact=lambda index, t, q: (q[0], [1.0]),
    )
    try:
        system.set_contact(0, law)
        law.close()  # the system keeps its own copy of the law
        system.set_state(0.0, [h0], [0.0])
        with EventDriven(system, **options) as stepper:
            stats = stepper.advance(t_end)
            impacts = [Impact(ev.t, ev.v_before[0], ev.v_after[0]) for ev in stepper.impacts]
            closed = [ev.t for ev in stepper.events if ev.type == EventType.CONTACT_CLOSED]
    finally:
        system.close()
        law.close()
    return BouncingBall(impacts, closed[0] if closed else None, t_end, stats)


class _CallableModule(types.ModuleType):
    """Deprecated: `nscd.bouncing_ball(...)` (the function, when the package
    imported it) still runs the demo, with a DeprecationWarning; use
    ``from nscd.bouncing_ball import bouncing_ball``."""

    def __call__(self, *args, **kwargs):
        warn("nscd.bouncing_ball(...)",
             "from nscd.bouncing_ball import bouncing_ball; bouncing_ball(...)")
        return bouncing_ball(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
