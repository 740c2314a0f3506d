"""The ctypes package: invalid inputs give NscdError with the library's status
and change nothing."""
import math

import pytest

import nscd
from nscd import NscdError, Status


def ball(mass=1.0, forces=None, contact=None):
    return nscd.System(
        1, n_contacts=1,
        mass=lambda q: [mass],
        forces=forces or (lambda t, q, v: [-9.81]),
        contact=contact or (lambda i, t, q: (q[0], [1.0])),
    )


def test_negative_mass_is_not_spd_from_set_state():
    with ball(mass=-2.0) as system:
        with pytest.raises(NscdError) as info:
            system.set_state(0.0, [1.0], [0.0])
        assert info.value.status == Status.ERR_NOT_SPD
        assert info.value.last_error  # the handle says why
        # The state is unchanged (still the initial t = 0, q = 0, v = 0).
        assert system.state() == (0.0, [0.0], [0.0])


@pytest.mark.parametrize("e", [-0.1, 1.0 + 1e-12, 2.0])
def test_restitution_outside_unit_interval(e):
    with pytest.raises(NscdError) as info:
        nscd.ContactLaw.newton(e)
    assert info.value.status == Status.ERR_OUT_OF_RANGE


@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
def test_restitution_inside_unit_interval(e):
    with nscd.ContactLaw.newton(e) as law:
        assert law.name == "newton"
        assert law.kind == 1  # NSCD_LAW_IMPULSIVE


@pytest.mark.parametrize("e", [math.nan, math.inf])
def test_restitution_not_finite(e):
    with pytest.raises(NscdError) as info:
        nscd.ContactLaw.newton(e)
    assert info.value.status == Status.ERR_NOT_FINITE


@pytest.mark.parametrize("q, v", [([math.nan], [0.0]), ([1.0], [math.inf]), ([1.0], [-math.nan])])
def test_state_not_finite(q, v):
    with ball() as system:
        system.set_state(0.5, [2.0], [-1.0])
        with pytest.raises(NscdError) as info:
            system.set_state(0.0, q, v)
        assert info.value.status == Status.ERR_NOT_FINITE
        assert system.state() == (0.5, [2.0], [-1.0])


def test_time_not_finite():
    with ball() as system:
        with pytest.raises(NscdError) as info:
            system.set_state(math.nan, [1.0], [0.0])
        assert info.value.status == Status.ERR_NOT_FINITE


def test_callback_returning_error_status():
    with nscd.System(1, mass=lambda q: -5) as system:  # the mass callback fails
        with pytest.raises(NscdError) as info:
            system.set_state(0.0, [1.0], [0.0])
        assert info.value.status == Status.ERR_CALLBACK
        assert "-5" in info.value.last_error  # the library names the returned code


def test_callback_raising_exception_is_the_cause():
    def mass(q):
        raise ZeroDivisionError("boom")

    with nscd.System(1, mass=mass) as system:
        with pytest.raises(NscdError) as info:
            system.set_state(0.0, [1.0], [0.0])
        assert info.value.status == Status.ERR_CALLBACK
        assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_callback_returning_ok_instead_of_values_fails():
    # A silent 0 would leave h unwritten: the package refuses it.
    with ball(forces=lambda t, q, v: 0) as system:
        system.set_state(0.0, [1.0], [0.0])
        with nscd.EventDriven(system) as stepper:
            with pytest.raises(NscdError) as info:
                stepper.advance(0.1)
        assert info.value.status == Status.ERR_CALLBACK
        assert isinstance(info.value.__cause__, TypeError)


def test_callback_wrong_length_fails():
    with nscd.System(1, mass=lambda q: [1.0, 2.0]) as system:
        with pytest.raises(NscdError) as info:
            system.set_state(0.0, [1.0], [0.0])
        assert info.value.status == Status.ERR_CALLBACK
        assert isinstance(info.value.__cause__, ValueError)


def test_contact_callback_error():
    with ball(contact=lambda i, t, q: -1) as system:
        system.set_state(0.0, [1.0], [0.0])
        with pytest.raises(NscdError) as info:
            system.contact(0)
        assert info.value.status == Status.ERR_CALLBACK


def test_forces_callback_error_during_integration():
    with ball(forces=lambda t, q, v: -3) as system:
        system.set_state(0.0, [1.0], [0.0])
        with nscd.EventDriven(system) as stepper:
            with pytest.raises(NscdError) as info:
                stepper.advance(0.1)
        assert info.value.status == Status.ERR_CALLBACK


def test_event_handler_error():
    with ball() as system:
        system.set_state(0.0, [0.1], [0.0])
        with nscd.EventDriven(system, on_event=lambda ev: -1) as stepper:
            with pytest.raises(NscdError) as info:
                stepper.advance(1.0)
        assert info.value.status == Status.ERR_CALLBACK


def test_bad_sizes_and_index():
    with pytest.raises(NscdError) as info:
        nscd.System(0, mass=lambda q: [])
    assert info.value.status == Status.ERR_INVALID_ARGUMENT
    with ball() as system:
        with pytest.raises(NscdError) as info:
            system.set_contact(3)
        assert info.value.status == Status.ERR_INDEX
        with pytest.raises(NscdError) as info:
            system.set_contact(0, friction=-0.1)
        assert info.value.status == Status.ERR_OUT_OF_RANGE


def test_sizes_and_contact_query():
    with ball() as system:
        assert system.sizes == (1, 1)
        system.set_state(0.0, [0.25], [-2.0])
        gap, velocity, mode = system.contact(0)
        assert (gap, velocity, mode) == (0.25, -2.0, 0)
        assert system.kinetic_energy() == pytest.approx(2.0, rel=1e-15)
