"""The package's API rules (python/README.md): one loader for the three
libraries, properties for held O(1) values and methods for computations, and
the deprecated spellings that still work and warn."""
import math
import os
import subprocess
import sys
import warnings

import pytest

import nscd
from nscd import _deprecated, _library


def pendulum():
    system = nscd.System(2, mass=lambda q: [1.0, 0.0, 0.0, 1.0],
                         forces=lambda t, q, v: [0.0, -9.81], n_equalities=1,
                         equality=lambda i, t, q: ((q[0] ** 2 + q[1] ** 2 - 1.0) / 2.0,
                                                   [q[0], q[1]]))
    system.set_state(0.0, [math.sin(0.5), -math.cos(0.5)], [0.0, 0.0])
    return system


def test_the_rule_is_documented():
    assert "Properties and methods follow one rule" in nscd.__doc__
    for name in ("time", "body_count", "joint_count", "last_error"):
        assert isinstance(getattr(nscd.World, name), property), name
    for name in ("kinetic_energy", "bodies", "contacts"):
        assert callable(getattr(nscd.World, name)) and \
            not isinstance(getattr(nscd.World, name), property), name
    assert isinstance(nscd.System.sizes, property)


def test_system_sizes_property_and_its_deprecated_call():
    with pendulum() as system:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert system.sizes == (2, 0)
            n_dof, n_contacts = system.sizes
            assert (n_dof, n_contacts) == (2, 0)
        with pytest.warns(DeprecationWarning, match=r"System\.sizes \(a property\)"):
            assert system.sizes() == (2, 0)


def test_callable_values_behave_as_their_value():
    t = _deprecated.callable_value(1.25, "W.time()", "W.time")
    assert t == 1.25 and isinstance(t, float) and t + 1 == 2.25 and f"{t:.1f}" == "1.2"
    with pytest.warns(DeprecationWarning, match=r"W\.time\(\) is deprecated, use W\.time"):
        assert t() == 1.25 and type(t()) is float
    pair = _deprecated.callable_value((1, 2), "S.sizes()", "S.sizes")
    assert pair == (1, 2) and isinstance(pair, tuple)
    with pytest.warns(DeprecationWarning):
        assert pair() == (1, 2)


def test_one_loader_for_three_libraries():
    assert set(_library.LIBRARIES) == {"nscd", "nscd_fclib", "nscd_mpi"}
    assert _library.load("nscd") is _library.library()
    assert _library.loaded_path("nscd") == nscd.library_path()
    # An explicit choice is final, for every library.
    env = dict(os.environ, NSCD_MPI_LIBRARY="/nonexistent/libnscd_mpi.so")
    code = ("from nscd import _library\n"
            "assert list(_library.candidates('nscd_mpi')) == ['/nonexistent/libnscd_mpi.so']\n"
            "try:\n    _library.load('nscd_mpi')\nexcept OSError as e:\n"
            "    assert 'NSCD_MPI_LIBRARY' in str(e) and '/nonexistent' in str(e), e\n"
            "else:\n    raise SystemExit('loaded')\n"
            "import nscd.world_mpi as wm\nassert not wm.available()\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_companions_are_looked_up_beside_libnscd():
    env = {k: v for k, v in os.environ.items() if k != "NSCD_FCLIB_LIBRARY"}
    code = ("import os\nfrom nscd import _library\n"
            "first = next(_library.candidates('nscd_fclib'))\n"
            "assert first == os.path.join(os.path.dirname(_library.library_path()), "
            "'libnscd_fclib.so'), first\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
