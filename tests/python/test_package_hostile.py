"""Hostile input through the package (docs/hostile_input.md): arrays replaced
behind a Problem's checks, integers that do not fit their C types, floats and
strings where integers are meant, unknown enum names, non-callables, complex
arrays. Every case raises a Python exception naming the argument; none wraps
around, truncates or reads past a buffer (run under ASan by
tests/checks/sanitizers.sh)."""
import os

import pytest

np = pytest.importorskip("numpy")
import nscd  # noqa: E402
import nscd.fclib as fclib  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "data", "fclib_spheres.hdf5"))
needs_fclib = pytest.mark.skipif(not fclib.available(),
                                 reason="libnscd_fclib not built (libfclib-dev missing)")


# ------------------------------------------------------------ fclib.Problem at write()
@needs_fclib
@pytest.mark.parametrize("field, value, error", [
    ("mu", lambda p: p.mu.astype(np.float32)[:-1], ValueError),       # fewer bytes than n doubles
    ("mu", lambda p: p.mu.astype(np.complex128), TypeError),
    ("col_idx", lambda p: p.col_idx[:-1], ValueError),                 # shorter than row_ptr[n]
    ("row_ptr", lambda p: np.append(p.row_ptr, p.row_ptr[-1]), ValueError),  # more contacts
    ("q", lambda p: p.q[:-2], ValueError),
    ("blocks", lambda p: p.blocks[:-1], ValueError),
    ("col_idx", lambda p: p.col_idx.astype(np.float64), TypeError),
    ("row_ptr", lambda p: p.row_ptr.astype(np.uint64) + np.uint64(2**63), OverflowError),
    ("mu", lambda p: np.array(["0.5"] * p.n_contacts), ValueError),
])
def test_problem_replaced_arrays_are_checked_at_write(tmp_path, field, value, error):
    p = fclib.read(SAMPLE)
    setattr(p, field, value(p))
    with pytest.raises(error):
        fclib.write(str(tmp_path / "out.hdf5"), p)
    assert not (tmp_path / "out.hdf5").exists()
    with pytest.raises(error):
        fclib.merit(p, np.zeros(3 * fclib.read(SAMPLE).n_contacts))


@needs_fclib
def test_problem_with_float32_and_strided_arrays_is_written_as_doubles(tmp_path):
    """A replaced array of another real dtype or layout is converted, not
    reinterpreted: the file holds the same values."""
    p = fclib.read(SAMPLE)
    mu = p.mu.copy()
    p.mu = np.repeat(mu, 2)[::2]          # a non-contiguous view with the same values
    p.q = p.q.astype(np.float32)          # rounded to float32, then written as doubles
    fclib.write(str(tmp_path / "out.hdf5"), p)
    back = fclib.read(str(tmp_path / "out.hdf5"))
    assert np.array_equal(back.mu, mu)
    assert np.array_equal(back.q, p.q.astype(np.float64))


def test_complex_arrays_are_refused_by_the_kernels():
    W = np.eye(3, dtype=np.complex128)
    with pytest.raises(TypeError, match="real"):
        nscd.fc3d_solve(W, np.zeros(3), [0.5])


# ------------------------------------------------------------ integers and enums
def oscillator():
    system = nscd.System(1, mass=lambda q: [1.0], forces=lambda t, q, v: [-4.0 * q[0]])
    system.set_state(0.0, [1.0], [0.0])
    return system


def sphere_world(**settings):
    world = nscd.World(**settings)
    world.add_body(nscd.Shape("half_space"), type="static")
    world.add_body(nscd.Shape("sphere", radius=0.5), position=[0.0, 0.0, 0.4])
    return world


@pytest.mark.parametrize("options, error", [
    ({"scheme": 2**32}, OverflowError),             # wrapped to 0, Moreau-Jean
    ({"max_iterations": 2**32 + 5}, OverflowError),  # wrapped to 5
    ({"max_steps": 2**63}, OverflowError),
    ({"max_iterations": 10.5}, TypeError),           # int() would truncate
    ({"max_iterations": "10"}, TypeError),
    ({"dt": "0.01"}, TypeError),
    ({"dt": 1j}, TypeError),
    ({"scheme": "bogus"}, ValueError),               # was KeyError('BOGUS')
])
def test_time_stepping_options_are_checked(options, error):
    with oscillator() as system:
        with pytest.raises(error) as err:
            nscd.TimeStepping(system, **options)
        assert list(options)[0] in str(err.value)
        if error is ValueError:
            assert "moreau_jean" in str(err.value)  # the valid names are listed


def test_indices_and_ids_do_not_wrap():
    with oscillator() as system, nscd.TimeStepping(system, dt=0.01) as stepper:
        stepper.advance(0.05)
        with pytest.raises(OverflowError):
            stepper.contact_impulse(2**32)           # returned contact 0's impulse
        with pytest.raises(TypeError):
            stepper.contact_impulse(0.0)
        with pytest.raises(TypeError):
            stepper.advance("1.0")
    with sphere_world() as world:
        body = world.add_body(nscd.Shape("sphere", radius=0.5), position=[0.0, 0.0, 3.0])
        with pytest.raises(OverflowError):
            world.add_joint("spherical", body_a=2**64 + body)  # joined body a
        with pytest.raises(OverflowError):
            world.get_body(2**64 + body)
        with pytest.raises(OverflowError):
            world.add_body(nscd.Shape("sphere"), user_id=-1)
        with pytest.raises(TypeError):
            world.step(n=1.5)                        # int(1.5) took one step
        with pytest.raises(TypeError):
            world.add_body(nscd.Shape("sphere"), mass="1")
    with pytest.raises(TypeError):
        nscd.World(max_sweeps=1.5)
    with pytest.raises(OverflowError):
        nscd.World(max_sweeps=2**31)
    with pytest.raises(ValueError, match="coulomb"):
        nscd.World(friction_law="bogus")


def test_observer_answers_are_checked():
    """on_step returning 2**40 wrapped to 0, "go on"; it now fails the advance."""
    for answer in (2**40, 1.0, "stop"):
        with oscillator() as system, \
                nscd.TimeStepping(system, dt=0.01, on_step=lambda r, a=answer: a) as stepper:
            with pytest.raises(nscd.NscdError) as err:
                stepper.advance(0.1)
            assert err.value.status == nscd.Status.ERR_CALLBACK
            assert isinstance(err.value.__cause__, (TypeError, OverflowError))
            assert stepper.report.step == 0  # stopped after the first step


def test_system_callback_status_does_not_wrap():
    """A force callback returning 2**32 (wrapped to NSCD_OK) fails the step."""
    def forces(t, q, v):
        return 2**32
    system = nscd.System(1, mass=lambda q: [1.0], forces=forces)
    with system, nscd.TimeStepping(system, dt=0.01) as stepper:
        with pytest.raises(nscd.NscdError) as err:
            stepper.advance(0.1)
        assert err.value.status == nscd.Status.ERR_CALLBACK


@pytest.mark.parametrize("make", [
    lambda: nscd.World(log=5),                                    # accepted, never logged
    lambda: nscd.System(1, mass="M", forces=lambda t, q, v: [0.0]),
    lambda: nscd.TimeStepping(oscillator(), on_step=3),
    lambda: nscd.EventDriven(oscillator(), on_event=[]),
])
def test_callables_are_checked_at_creation(make):
    with pytest.raises(TypeError, match="callable"):
        make()
