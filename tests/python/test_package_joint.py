"""Ideal and clearance joints of nscd.World (include/nscd/joint.h): World methods,
and the deprecated free functions of nscd.joint."""
import warnings
import math

import pytest

np = pytest.importorskip("numpy")

import nscd  # noqa: E402
from nscd import _library  # noqa: E402
from nscd.errors import NscdError, Status  # noqa: E402
from nscd.time_stepping import TimeStepping  # noqa: E402

if not hasattr(_library.library(), "nscd_world_add_joint"):
    pytest.skip("the library has no joints yet", allow_module_level=True)

G = 9.81


def test_revolute_pendulum_has_the_elliptic_period():
    # m = 2, I_cm = 0.1, L = 1, released horizontal: T = 4 sqrt(I_O/(m g L)) K(1/2).
    m, L, icm = 2.0, 1.0, 0.1
    exact = 4.0 * math.sqrt((icm + m * L * L) / (m * G * L)) * 1.8540746773013719
    with nscd.World(gravity=(0, -G, 0)) as world:
        body = world.add_body(position=(L, 0.0, 0.0), mass=m, inertia=(icm, icm, icm))
        joint = world.add_joint("revolute", body_b=body, position_b=(-L, 0.0, 0.0))
        assert world.joint_count == 1 and world.joint_valid(joint)
        crossings, previous, t = [], 0.0, 0.0
        with TimeStepping(world, scheme="moreau_midpoint", dt=1e-3) as ts:
            for n in range(1, 5001):
                ts.advance(n * 1e-3)
                p, _, _, _ = world.get_body(body)
                angle = math.atan2(p[0], -p[1])
                if n > 1 and previous < 0.0 <= angle:
                    crossings.append((n - 1 + previous / (previous - angle)) * 1e-3)
                previous = angle
        assert len(crossings) >= 2
        assert (crossings[1] - crossings[0]) / exact - 1.0 == pytest.approx(0.0, abs=1e-5)
        assert np.max(np.abs(world.joint_residual(joint))) < 1e-11
        force, torque = world.joint_reaction(joint)
        assert force.shape == (3,) and abs(torque[2]) < 1e-9  # a pin carries no torque about z
        world.remove_joint(joint)
        assert not world.joint_valid(joint)
        with pytest.raises(NscdError) as error:
            world.joint_residual(joint)
        assert error.value.status == Status.ERR_STALE_HANDLE


def test_clearance_gaps_and_bad_input():
    with nscd.World(gravity=(0, -G, 0)) as world:
        body = world.add_body(position=(0.5, 0.0, 0.0), mass=1.0, inertia=(0.02,) * 3)
        with pytest.raises(NscdError) as error:
            world.add_clearance_joint("revolute", inner_body=body, hole_radius=0.01,
                                      pin_radius=0.01)
        assert error.value.status == Status.ERR_OUT_OF_RANGE
        joint = world.add_clearance_joint("revolute", inner_body=body,
                                          inner_position=(-0.5, 0.0, 0.0), hole_radius=0.0101,
                                          pin_radius=0.01, inner_length=0.05, outer_length=0.0502)
        gaps = world.clearance_gaps(joint)
        assert gaps.gaps == pytest.approx([1e-4, 1e-4, 1e-4, 1e-4], abs=1e-15)
        assert gaps.normals.shape == (4, 3)
        world.set_joint_projection(3, 1e-12)
        with TimeStepping(world, scheme="moreau_midpoint", dt=1e-4) as ts:
            ts.advance(0.1)
        gaps = world.clearance_gaps(joint)
        assert np.min(gaps.gaps[:2]) > -3e-12  # the pin stays inside the clearance circle
        assert np.min(gaps.gaps[:2]) < 1e-9  # and touches the hole
        with pytest.raises(NscdError):
            world.step()  # the world's own solver refuses joints
        world.remove_body(body)
        assert world.joint_count == 0


def _clearance_pendulum_energy(energy_form, t_end=0.5):
    """The energy (E(0) = 0) of examples/revolute_pendulum.c's clearance
    pendulum after t_end, midpoint rule, h = 1e-3."""
    with nscd.World(gravity=(0, -G, 0)) as world:
        body = world.add_body(position=(0.5, 0.0, 0.0), mass=1.0, inertia=(0.02,) * 3)
        world.add_clearance_joint("revolute", inner_body=body,
                                  inner_position=(-0.5, 0.0, 0.0), hole_radius=0.0101,
                                  pin_radius=0.01, inner_length=0.05, outer_length=0.0502,
                                  energy_form=energy_form)
        with TimeStepping(world, scheme="moreau_midpoint", dt=1e-3) as ts:
            ts.advance(t_end)
        x, _, v, w = world.get_body(body)
        return 0.5 * float(np.dot(v, v)) + 0.5 * 0.02 * float(np.dot(w, w)) + G * float(x[1])


def test_clearance_energy_form():
    loss = G * 1e-4 * 0.02 / 0.27  # the first (plastic) impact: m g c I_cm / I_O
    kept = _clearance_pendulum_energy(True)
    plastic = _clearance_pendulum_energy(False)
    # the first impact is lost, then little: -1.19e-4 J (the fast rolling of
    # the pin at h = 1e-3, second order in h); the plastic form: -1.69e-2 J
    assert -2 * loss < kept < -0.95 * loss
    assert plastic < -100 * loss


def test_deprecated_free_functions_still_work_and_warn():
    """nscd.add_joint(world, ...) and the other free functions of nscd.joint
    are aliases of the World methods: same results, and a DeprecationWarning
    that names the method."""
    with nscd.World(gravity=(0, -G, 0)) as world:
        body = world.add_body(position=(1.0, 0.0, 0.0), mass=2.0, inertia=(0.1,) * 3)
        with pytest.warns(DeprecationWarning, match=r"world\.add_joint"):
            joint = nscd.add_joint(world, "revolute", body_b=body, position_b=(-1.0, 0.0, 0.0))
        with pytest.warns(DeprecationWarning, match=r"world\.joint_count"):
            assert nscd.joint_count(world) == world.joint_count == 1
        with pytest.warns(DeprecationWarning):
            assert nscd.joint_valid(world, joint) and world.joint_valid(joint)
        with pytest.warns(DeprecationWarning):
            residual = nscd.joint_residual(world, joint)
        assert np.array_equal(residual, world.joint_residual(joint))
        with pytest.warns(DeprecationWarning):
            nscd.set_joint_projection(world, 3, 1e-12)
        with pytest.warns(DeprecationWarning):
            nscd.remove_joint(world, joint)
        assert world.joint_count == 0
        assert "Deprecated: use world.add_joint(...)" in nscd.add_joint.__doc__
    # The new spellings do not warn.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with nscd.World() as world:
            assert world.joint_count == 0
            assert nscd.JointType.FIXED == 4 and nscd.ClearanceGaps._fields[0] == "gaps"
