"""nscd: Python bindings (ctypes) of libnscd, the
nonsmooth contact dynamics library.

The shared library is found through $NSCD_LIBRARY, then a build tree next to
the package (the repository's build/libnscd.so), then the libdir of
`pkg-config nscd`, then the system's library path (libnscd.so.<ABI>);
nscd.library_path() tells which was loaded.

The core (System, the steppers, contact laws, compliant helpers) needs only the
standard library; the array kernels (fc3d_solve, lcp_solve, the single-contact
solvers, routh_impact) and the rigid-body World take and return numpy arrays
and import numpy on first use."""
from ._library import ABI_VERSION, library, library_path
from ._version import __version__
from .bouncing_ball import BouncingBall, Impact, analytic_rest_time, bouncing_ball
from .compliant import (CentralImpact, CoptMethod, HcModel, Indentation, central_impact,
                        copt_closed_form, copt_exact, hunt_crossley_factor,
                        kelvin_voigt_restitution)
from .errors import NscdError, Status, check, status_string
from .event_driven import Event, EventDriven, EventType, Method, Stats, ZenoPolicy
from .system import ContactLaw, System
from .time_stepping import (Forces, Level, LocalSolver, ProxR, Report, Scheme, Start, StepRule,
                            TimeStepping, TimeSteppingStats)

__all__ = [
    "ABI_VERSION", "Beam", "BeamReference", "Bodies", "BodyType", "BouncingBall", "CentralImpact",
    "ClearanceGaps", "ClearanceImpact", "ClearanceType", "ContactLaw", "Contacts", "JointType",
    "add_clearance_joint", "add_joint", "clearance_gaps", "joint_count", "joint_reaction",
    "joint_residual", "joint_valid", "remove_joint", "set_joint_projection",
    "CoptMethod", "CoulombInfo", "Event", "EventDriven", "EventType", "Fc3dBlockKind",
    "Fc3dBlockReport", "Fc3dFrictionLaw", "Fc3dInfo", "Fc3dMethod", "Fc3dNewtonFailure", "Forces",
    "FrictionCombine", "FrictionLaw", "HcModel", "Impact",
    "Indentation", "Level", "LocalSolver", "Method", "NscdError", "ProxR", "Report", "RouthCase",
    "RouthResult", "Scheme", "Shape", "ShapeType", "Start", "Stats", "StepRule", "Status", "System",
    "TimeStepping", "TimeSteppingStats", "World", "WorldFormat", "WorldStepReport", "ZenoPolicy",
    "abi_version", "analytic_rest_time", "bouncing_ball", "central_impact", "check",
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
    "joint": ("ClearanceGaps", "ClearanceImpact", "ClearanceType", "JointType",
              "add_clearance_joint", "add_joint", "clearance_gaps", "joint_count",
              "joint_reaction", "joint_residual", "joint_valid", "remove_joint",
              "set_joint_projection"),
    "world": ("Bodies", "BodyType", "Contacts", "FrictionCombine", "FrictionLaw", "Shape",
              "ShapeType", "VtkFlags", "VtkSeries", "World", "WorldFormat", "WorldStepReport"),
}


def __getattr__(name):
    for module, names in _LAZY.items():
        if name in names:
            import importlib
            value = getattr(importlib.import_module(f".{module}", __name__), name)
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def version():
    """nscd_version(): MAJOR*10000 + MINOR*100 + PATCH of the loaded library."""
    return library().nscd_version()


def version_string():
    """nscd_version_string(): e.g. "0.1.0"."""
    return library().nscd_version_string().decode()


def abi_version():
    """nscd_abi_version(): the ABI major (the SONAME number)."""
    return library().nscd_abi_version()
