"""nscd.TimeStepping over an nscd.World (nscd_time_stepping_create_world)."""
import pytest

np = pytest.importorskip("numpy")

import nscd  # noqa: E402
from nscd import _library  # noqa: E402
from nscd.errors import NscdError, Status  # noqa: E402
from nscd.time_stepping import TimeStepping  # noqa: E402

if not hasattr(_library.library(), "nscd_time_stepping_create_world"):
    pytest.skip("the library cannot drive a world by a time stepper yet", allow_module_level=True)

G = 9.81


def test_moreau_jean_rolls_a_sliding_sphere_at_five_sevenths():
    r, v0, mu = 0.05, 1.0, 0.3
    with nscd.World(gravity=(0, 0, -G), default_friction=mu) as world:
        world.add_half_space()
        ball = world.add_sphere(r, position=(0.0, 0.0, r), velocity=(v0, 0.0, 0.0))
        with TimeStepping(world, scheme="moreau_jean", theta=1.0, gamma=1.0, dt=1e-3,
                          tolerance=1e-13) as ts:
            stats = ts.advance(0.5)
            assert stats.steps == 500
            assert world.time == pytest.approx(0.5, abs=1e-12)
            p, _, v, w = world.get_body(ball)
            assert v[0] == pytest.approx(5.0 / 7.0 * v0, abs=1e-9)  # rolling: v = r ω
            assert w[1] * r == pytest.approx(v[0], abs=1e-9)
            assert p[2] == pytest.approx(r, abs=1e-12)
            normal, tangent = ts.contact_impulse(0)
            mass, _ = world.body_mass(ball)
            assert normal == pytest.approx(mass * G * 1e-3, rel=1e-9)
            assert len(tangent) == 2
            assert world.contacts().impulses.shape == (1, 3)


def test_alpha_schemes_are_refused_and_a_closed_world_is_stale():
    world = nscd.World()
    world.add_sphere(0.1, position=(0.0, 0.0, 1.0))
    with pytest.raises(NscdError) as info:
        TimeStepping(world, scheme="bathe")
    assert info.value.status == Status.ERR_UNSUPPORTED
    ts = TimeStepping(world, dt=1e-3)
    ts.advance(0.01)
    world.close()
    with pytest.raises(NscdError) as info:
        ts.advance(0.02)
    assert info.value.status == Status.ERR_STALE_HANDLE
    ts.close()
