"""nscd: Python bindings (ctypes) of libnscd, the
nonsmooth contact dynamics library.

The shared libraries (libnscd, and the optional libnscd_fclib and
libnscd_mpi) are found by one loader (nscd._library.load): through
$NSCD_LIBRARY (resp. $NSCD_FCLIB_LIBRARY, $NSCD_MPI_LIBRARY), then beside the
loaded libnscd (the companions), then a build tree next to the package (the
repository's build/), then the libdir of `pkg-config nscd`, then the system's
library path (lib*.so.<ABI>); nscd.library_path() tells which libnscd was
loaded. The ctypes structs, enums, callback types and prototypes are generated
from the public headers (nscd._bindings, by tools/gen_python_bindings.py).

The core (System, the steppers, contact laws, compliant helpers) needs only the
standard library; the array kernels (fc3d_solve, lcp_solve, the single-contact
solvers, routh_impact) and the rigid-body World take and return numpy arrays
and import numpy on first use.

Properties and methods follow one rule: a property is a value the object
holds or an O(1) query of it that cannot fail on an open object (World.time,
World.body_count, World.joint_count, World.last_error, System.sizes,
TimeStepping.report, DistributedWorld.time); a method computes or copies out
(over the bodies, contacts or DOFs: World.kinetic_energy(), World.bodies(),
World.contacts(), Beam.stiffness(), System.state()), takes arguments, may fail
with a status, or is collective under MPI (DistributedWorld.global_count()).

Deprecated (they still work and raise a DeprecationWarning): the joints' free
functions nscd.add_joint(world, ...), nscd.joint_count(world), ... (now World
methods: world.add_joint(...), world.joint_count); the bouncing-ball demo in
the package namespace, nscd.bouncing_ball(...), nscd.BouncingBall, nscd.Impact,
nscd.analytic_rest_time (import it: from nscd.bouncing_ball import
bouncing_ball); the calls System.sizes() and DistributedWorld.time() (now
properties)."""
from ._library import ABI_VERSION, library, library_path
from ._version import __version__  # noqa: F401  (the package's version)
from .compliant import (CentralImpact, CoptMethod, HcModel, Indentation, central_impact,
                        copt_closed_form, copt_exact, hunt_crossley_factor,
                        kelvin_voigt_restitution)
from .errors import NscdError, Status, check, status_string
from .event_driven import Event, EventDriven, EventType, Method, Stats, ZenoPolicy
from .system import ContactLaw, System
from .time_stepping import (Forces, Level, LocalSolver, ProxR, Report, Scheme, Start, StepRule,
                            TimeStepping, TimeSteppingStats)

__all__ = [
    "ABI_VERSION", "Beam", "BeamReference", "Bodies", "BodyType", "CentralImpact",
    "ClearanceGaps", "ClearanceImpact", "ClearanceType", "ContactLaw", "Contacts", "JointType",
    "CoptMethod", "CoulombInfo", "Event", "EventDriven", "EventType", "Fc3dBlockKind",
    "Fc3dBlockReport", "Fc3dFrictionLaw", "Fc3dInfo", "Fc3dMethod", "Fc3dNewtonFailure", "Forces",
    "FrictionCombine", "FrictionLaw", "HcModel",
    "Indentation", "Level", "LocalSolver", "Method", "NscdError", "ProxR", "Report", "RouthCase",
    "RouthResult", "Scheme", "Shape", "ShapeType", "Start", "Stats", "StepRule", "Status", "System",
    "TimeStepping", "TimeSteppingStats", "World", "WorldFormat", "WorldStepReport", "ZenoPolicy",
    "abi_version", "central_impact", "check",
    "copt_closed_form", "copt_exact", "coulomb_single_contact", "coulomb_single_contact_all",
    "fc3d_check", "fc3d_check_bsr", "fc3d_solve", "fc3d_solve_bsr", "Gfc3dInfo", "gfc3d_solve",
    "hunt_crossley_factor", "kelvin_voigt_restitution", "lcp_solve", "library", "library_path",
    "mdp_single_contact", "routh_case_name",
    "routh_impact", "routh_impact_ex", "status_string", "version", "version_string",
]

# Names of the numpy-based modules, imported on first use (PEP 562).
_LAZY = {
    "beam": ("Beam", "BeamReference"),
    "kernels": ("CoulombInfo", "Fc3dBlockKind", "Fc3dBlockReport", "Fc3dFrictionLaw", "Fc3dInfo",
                "Fc3dMethod", "Fc3dNewtonFailure", "Gfc3dInfo", "coulomb_single_contact",
                "coulomb_single_contact_all", "fc3d_check", "fc3d_check_bsr", "fc3d_solve",
                "fc3d_solve_bsr", "gfc3d_solve", "lcp_solve", "mdp_single_contact"),
    "routh": ("RouthCase", "RouthResult", "routh_case_name", "routh_impact", "routh_impact_ex"),
    "world": ("Bodies", "BodyType", "ClearanceGaps", "ClearanceImpact", "ClearanceType",
              "Contacts", "FrictionCombine", "FrictionLaw", "JointType", "Shape", "ShapeType",
              "VtkFlags", "VtkSeries", "World", "WorldFormat", "WorldStepReport"),
    # Deprecated: World methods now (nscd.joint warns when they are called).
    "joint": ("add_clearance_joint", "add_joint", "clearance_gaps", "joint_count",
              "joint_reaction", "joint_residual", "joint_valid", "remove_joint",
              "set_joint_projection"),
}

# Deprecated: the demo's names, no longer in the namespace (warn on access).
_DEMO = ("BouncingBall", "Impact", "analytic_rest_time")


def __getattr__(name):
    import importlib
    for module, names in _LAZY.items():
        if name in names:
            value = getattr(importlib.import_module(f".{module}", __name__), name)
            globals()[name] = value
            return value
    if name == "bouncing_ball":
        # The demo module (import nscd.bouncing_ball); calling it as the old
        # function nscd.bouncing_ball(...) still works and warns.
        return importlib.import_module(".bouncing_ball", __name__)
    if name in _DEMO:
        from ._deprecated import warn
        warn(f"nscd.{name}", f"nscd.bouncing_ball.{name} (import nscd.bouncing_ball)")
        return getattr(importlib.import_module(".bouncing_ball", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def version():
    """nscd_version(): MAJOR*10000 + MINOR*100 + PATCH of the loaded library."""
    return library().nscd_version()


def version_string():
    """nscd_version_string(): e.g. "0.2.0"."""
    return library().nscd_version_string().decode()


def abi_version():
    """nscd_abi_version(): the ABI major (the SONAME number)."""
    return library().nscd_abi_version()
