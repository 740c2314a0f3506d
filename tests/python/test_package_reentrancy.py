"""Re-entrancy through the package (docs/hostile_input.md): close() of a
stepper, its system or its world inside the stepper's own callback stops the
call, which raises NscdError(ERR_STALE_HANDLE) and the library frees the
handle when it returns; a nested advance or step raises ERR_STATE. Under
ASan a use after free here fails the run."""
import math

import pytest

import nscd
from nscd import NscdError, Status


def oscillator():
    system = nscd.System(1, mass=lambda q: [1.0], forces=lambda t, q, v: [-4.0 * q[0]])
    system.set_state(0.0, [1.0], [0.0])
    return system


@pytest.mark.parametrize("target", ["stepper", "system"])
def test_close_inside_on_step(target):
    system = oscillator()
    calls = []

    def on_step(report):
        calls.append(report.t)
        if len(calls) == 3:
            (stepper if target == "stepper" else system).close()

    stepper = nscd.TimeStepping(system, dt=0.01, on_step=on_step)
    with pytest.raises(NscdError) as err:
        stepper.advance(1.0)
    assert err.value.status == Status.ERR_STALE_HANDLE
    assert len(calls) == 3 and calls[-1] == pytest.approx(0.03)
    if target == "stepper":
        t, q, v = system.state()
        assert t == pytest.approx(0.03)
        system.close()
    else:
        with pytest.raises(NscdError) as again:
            stepper.advance(2.0)
        assert again.value.status == Status.ERR_STALE_HANDLE
        stepper.close()


def test_nested_advance_inside_on_step_is_refused():
    system = oscillator()
    nested = []

    def on_step(report):
        if not nested:
            with pytest.raises(NscdError) as err:
                stepper.advance(report.t + 1.0)
            nested.append(err.value.status)

    with system, nscd.TimeStepping(system, dt=0.01, on_step=on_step) as stepper:
        stats = stepper.advance(0.1)
        assert nested == [Status.ERR_STATE] and stats.steps == 10


def test_system_closed_inside_its_force_callback():
    state = {"calls": 0}

    def forces(t, q, v):
        state["calls"] += 1
        if state["calls"] == 4:
            system.close()
        return [-4.0 * q[0]]

    system = nscd.System(1, mass=lambda q: [1.0], forces=forces)
    system.set_state(0.0, [1.0], [0.0])
    with nscd.TimeStepping(system, dt=0.01) as stepper:
        with pytest.raises(NscdError) as err:
            stepper.advance(1.0)
        assert err.value.status == Status.ERR_STALE_HANDLE


@pytest.mark.parametrize("target", ["stepper", "system"])
def test_close_inside_on_event(target):
    # a ball dropped from 1 m on a floor (Newton e = 1/2): the first event is
    # the impact at t = sqrt(2 / g)
    system = nscd.System(1, n_contacts=1, mass=lambda q: [1.0], forces=lambda t, q, v: [-9.81],
                         contact=lambda i, t, q: (q[0], [1.0]))
    law = nscd.ContactLaw.newton(0.5)
    system.set_contact(0, law=law)
    system.set_state(0.0, [1.0], [0.0])
    times = []

    def on_event(event):
        times.append(event.t)
        (stepper if target == "stepper" else system).close()

    stepper = nscd.EventDriven(system, on_event=on_event)
    with pytest.raises(NscdError) as err:
        stepper.advance(10.0)
    assert err.value.status == Status.ERR_STALE_HANDLE
    assert len(times) == 1 and times[0] == pytest.approx(math.sqrt(2.0 / 9.81), rel=1e-6)
    stepper.close()
    system.close()
    law.close()


def sphere_world(**settings):
    world = nscd.World(**settings)
    world.add_body(nscd.Shape("half_space"), type="static")
    world.add_body(nscd.Shape("sphere", radius=0.5), position=[0.0, 0.0, 0.4])
    return world


@pytest.mark.parametrize("target", ["world", "stepper"])
def test_close_inside_world_stepper_on_step(target):
    world = sphere_world()
    calls = []

    def on_step(report):
        calls.append(report.t)
        if len(calls) == 2:
            (world if target == "world" else stepper).close()

    stepper = nscd.TimeStepping(world, dt=0.01, on_step=on_step)
    with pytest.raises(NscdError) as err:
        stepper.advance(0.1)
    assert err.value.status == Status.ERR_STALE_HANDLE and len(calls) == 2
    if target == "stepper":
        assert world.time == pytest.approx(0.02)
    stepper.close()
    world.close()


def test_world_step_inside_world_stepper_on_step_is_refused():
    world = sphere_world()
    nested = []

    def on_step(report):
        if not nested:
            with pytest.raises(NscdError) as err:
                world.step()
            nested.append(err.value.status)

    with world, nscd.TimeStepping(world, dt=0.01, on_step=on_step) as stepper:
        stepper.advance(0.05)
        assert nested == [Status.ERR_STATE]
        assert world.time == pytest.approx(0.05)


def test_world_closed_inside_its_log_during_step():
    lines = []

    def log(level, message):
        lines.append(message)
        world.close()

    # one sweep and a tolerance no sweep reaches: the step fails and logs
    world = sphere_world(log=log, tolerance=1e-300, max_sweeps=1)
    with pytest.raises(NscdError) as err:
        world.step()
    assert err.value.status == Status.ERR_STALE_HANDLE and len(lines) == 1
    with pytest.raises(ValueError):
        world.step()


def test_world_close_inside_log_outside_step_is_refused():
    refused = []

    def log(level, message):
        try:
            world.close()
        except RuntimeError as exc:
            refused.append(str(exc))

    world = sphere_world(log=log)
    with pytest.raises(NscdError):
        world.add_material(-1.0)
    assert len(refused) == 1 and "log callback" in refused[0]
    world.step()  # still open
    world.close()
