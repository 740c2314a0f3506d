"""The generic Lagrangian system (include/nscd/system.h) and contact laws
(include/nscd/contact_law.h), with Python callbacks."""
import ctypes
import math

from . import _library as _c
from ._deprecated import callable_value
from ._handle import OwnedHandle
from .errors import NscdError, Status, check


def _floats(seq, n, what):
    """The first n floats of a (possibly nested) sequence, checking its length."""
    flat = []
    for item in seq:
        if isinstance(item, (list, tuple)):
            flat.extend(float(x) for x in item)
        else:
            flat.append(float(item))
    if len(flat) != n:
        raise ValueError(f"{what}: expected {n} values, got {len(flat)}")
    return flat


def _write(ptr, values):
    for i, x in enumerate(values):
        ptr[i] = x


class _Callbacks:
    """Turns Python functions into C callbacks.

    A C callback must not raise: an exception is stored (raised again by the
    caller as the cause of the NscdError) and the callback returns
    NSCD_ERR_CALLBACK. A Python function may also return an int status to fail
    on purpose (any non-zero value); the library then reports NSCD_ERR_CALLBACK."""

    def __init__(self):
        self.exception = None

    def wrap(self, ctype, body):
        def callback(*args):
            try:
                result = body(*args)
            except BaseException as exc:  # noqa: BLE001  (must not cross into C)
                if self.exception is None:
                    self.exception = exc
                return int(Status.ERR_CALLBACK)
            if result is None:
                return 0
            try:  # a status: an int32 (2**32 would wrap to NSCD_OK)
                return _c.int32(result, "a callback's return value")
            except (TypeError, OverflowError) as exc:
                if self.exception is None:
                    self.exception = exc
                return int(Status.ERR_CALLBACK)
        return ctype(callback)

    def take(self):
        exc, self.exception = self.exception, None
        return exc


def _status_of(result):
    """A user callback returning an int (not a bool) reports that status. Only
    failures may be reported this way: returning 0 (NSCD_OK) instead of the
    values would leave the outputs unwritten, so it is an error too."""
    if isinstance(result, int) and not isinstance(result, bool):
        if result == 0:
            raise TypeError("a callback must return its values; an int return is a failure status")
        return True
    return False


class ContactLaw(OwnedHandle):
    """An impact or force law (opaque nscd_contact_law)."""

    def __init__(self, handle):
        self._handle = ctypes.c_void_p(handle)

    @classmethod
    def _create(cls, suffix, *args):
        function = f"nscd_contact_law_create_{suffix}"
        out = ctypes.c_void_p()
        check(getattr(_c.library(), function)(*args, None, ctypes.byref(out)), function)
        return cls(out.value)

    @classmethod
    def newton(cls, e: float) -> "ContactLaw":
        """Newton's kinematic restitution with coefficient e in [0, 1]."""
        return cls._create("newton", float(e))

    @classmethod
    def poisson(cls, e: float) -> "ContactLaw":
        """Poisson's (kinetic) restitution: the normal impulse of restitution is
        e in [0, 1] times that of compression."""
        return cls._create("poisson", float(e))

    @classmethod
    def routh(cls, e: float) -> "ContactLaw":
        """Routh's planar frictional impact with Poisson's e in [0, 1]; the
        contact needs friction and n_tangent = 1 (set_contact)."""
        return cls._create("routh", float(e))

    @classmethod
    def hertz_damper(cls, k: float, n: float, e: float, method: int = 1,
                     indentation: int = 0) -> "ContactLaw":
        """Hertz spring + linear damper f = c delta_dot + k delta^n whose c is
        chosen at each onset to restitute e in (0, 1]; method: a
        compliant.CoptMethod (default EXACT), indentation: a
        compliant.Indentation (default TEMPORARY)."""
        return cls._create("hertz_damper", float(k), float(n), float(e),
                           _c.int32(method, "method"), _c.int32(indentation, "indentation"))

    @classmethod
    def hunt_crossley(cls, k: float, n: float, e: float, model: int) -> "ContactLaw":
        """Hunt–Crossley force f = (mu delta_dot + k) delta^n, mu from the
        compliant.HcModel `model` at each onset."""
        return cls._create("hunt_crossley", float(k), float(n), float(e),
                           _c.int32(model, "model"))

    @classmethod
    def kelvin_voigt(cls, k: float, c: float, indentation: int = 0) -> "ContactLaw":
        """Linear Kelvin–Voigt spring–damper f = c delta_dot + k delta."""
        return cls._create("kelvin_voigt", float(k), float(c),
                           _c.int32(indentation, "indentation"))

    @classmethod
    def spring_damper(cls, k: float, n: float, c: float, indentation: int = 0) -> "ContactLaw":
        """Hertz spring with a fixed damper f = c delta_dot + k delta^n."""
        return cls._create("spring_damper", float(k), float(n), float(c),
                           _c.int32(indentation, "indentation"))

    @property
    def handle(self):
        return self._handle

    @property
    def name(self):
        return _c.library().nscd_contact_law_name(self._handle).decode()

    @property
    def kind(self):
        kind = ctypes.c_int32()
        check(_c.library().nscd_contact_law_get_kind(self._handle, ctypes.byref(kind)),
              "nscd_contact_law_get_kind")
        return kind.value

    def _destroy(self, handle):
        _c.library().nscd_contact_law_destroy(handle)


class System(OwnedHandle):
    """A generic Lagrangian system M(q) dv/dt = h(q, v, t) + W' lambda with
    unilateral contacts, described by Python functions:

    - ``mass(q)`` -> M(q), n_dof*n_dof values (flat row-major or nested), or
    - ``mass_solve(q, b)`` -> M(q)^-1 b (n_dof values);
    - ``forces(t, q, v)`` -> h (n_dof values), optional;
    - ``contact(index, t, q)`` -> ``(gap, w_normal)`` or
      ``(gap, w_normal, w_tangent)`` (w_tangent: n_tangent*n_dof values);
    - ``equality(index, t, q)`` -> ``(g, w)``: the ``n_equalities`` bilateral
      constraints g(q) = 0 (0 when satisfied) and their rows w = dg/dq,
      held with multipliers of either sign (since 0.2);
    - ``stiffness(t, q, v)`` -> K = -dh/dq and ``damping(t, q, v)`` -> C = -dh/dv
      (n_dof*n_dof values, row-major), optional (since 0.2).

    Each function may return a non-zero int status instead to fail on purpose
    (the library then reports NSCD_ERR_CALLBACK); an exception raised inside a
    callback also gives NSCD_ERR_CALLBACK and becomes the __cause__ of the
    NscdError."""

    def __init__(self, n_dof, mass=None, forces=None, contact=None, n_contacts=0,
                 mass_solve=None, equality=None, n_equalities=0, stiffness=None,
                 damping=None):
        lib = _c.library()
        self._lib = lib
        self._handle = None
        self.n_dof = _c.int32(n_dof, "n_dof")
        self.n_contacts = _c.int32(n_contacts, "n_contacts")
        self.n_equalities = _c.int32(n_equalities, "n_equalities")
        for name, function in (("mass", mass), ("forces", forces), ("contact", contact),
                               ("mass_solve", mass_solve), ("equality", equality),
                               ("stiffness", stiffness), ("damping", damping)):
            _c.callback(function, name)
        self._callbacks = _Callbacks()
        self._keep = []  # the C callbacks must outlive the handle
        n = max(self.n_dof, 0)

        desc = _c.SystemDesc()
        check(lib.nscd_system_desc_init(ctypes.byref(desc), ctypes.sizeof(desc)),
              "nscd_system_desc_init")
        desc.n_dof = self.n_dof
        desc.n_contacts = self.n_contacts
        if mass is not None:
            def mass_body(_user, q, out):
                result = mass(list(q[:n]))
                if _status_of(result):
                    return result
                _write(out, _floats(result, n * n, "mass"))
                return 0
            desc.mass = self._wrap(_c.MASS_FN, mass_body)
        if mass_solve is not None:
            def mass_solve_body(_user, q, b, out):
                result = mass_solve(list(q[:n]), list(b[:n]))
                if _status_of(result):
                    return result
                _write(out, _floats(result, n, "mass_solve"))
                return 0
            desc.mass_solve = self._wrap(_c.MASS_SOLVE_FN, mass_solve_body)
        if forces is not None:
            def forces_body(_user, t, q, v, out):
                result = forces(t, list(q[:n]), list(v[:n]))
                if _status_of(result):
                    return result
                _write(out, _floats(result, n, "forces"))
                return 0
            desc.forces = self._wrap(_c.FORCES_FN, forces_body)
        if contact is not None:
            self._n_tangent = [0] * max(self.n_contacts, 0)

            def contact_body(_user, index, t, q, gap, w_normal, w_tangent):
                result = contact(index, t, list(q[:n]))
                if _status_of(result):
                    return result
                gap[0] = float(result[0])
                _write(w_normal, _floats(result[1], n, "contact w_normal"))
                if w_tangent:
                    k = self._n_tangent[index] if index < len(self._n_tangent) else 0
                    rows = result[2] if len(result) > 2 else [0.0] * (k * n)
                    _write(w_tangent, _floats(rows, k * n, "contact w_tangent"))
                return 0
            desc.contact = self._wrap(_c.CONTACT_FN, contact_body)
        desc.n_equalities = self.n_equalities
        if equality is not None:
            desc.equality = self._wrap(_c.EQUALITY_FN, self._equality_body(equality, n))
        if stiffness is not None:
            desc.stiffness = self._wrap(_c.MATRIX_FN, self._matrix_body(stiffness, n, "stiffness"))
        if damping is not None:
            desc.damping = self._wrap(_c.MATRIX_FN, self._matrix_body(damping, n, "damping"))

        handle = ctypes.c_void_p()
        self._check(lib.nscd_system_create(ctypes.byref(desc), ctypes.byref(handle)),
                    "nscd_system_create", with_handle=False)
        self._handle = handle

    @staticmethod
    def _equality_body(equality, n):
        def equality_body(_user, index, t, q, g, w):
            result = equality(index, t, list(q[:n]))
            if _status_of(result):
                return result
            g[0] = float(result[0])
            _write(w, _floats(result[1], n, "equality w"))
            return 0
        return equality_body

    @staticmethod
    def _matrix_body(matrix, n, what):
        def matrix_body(_user, t, q, v, out):
            result = matrix(t, list(q[:n]), list(v[:n]))
            if _status_of(result):
                return result
            _write(out, _floats(result, n * n, what))
            return 0
        return matrix_body

    def _wrap(self, ctype, body):
        fn = self._callbacks.wrap(ctype, body)
        self._keep.append(fn)
        return fn

    def _check(self, status, function, with_handle=True):
        """Raises NscdError for a failing status; an exception raised by a
        Python callback during the call becomes its __cause__."""
        cause = self._callbacks.take()
        if status == Status.OK:
            return
        error = None
        if with_handle and self._handle is not None:
            error = lambda: self._lib.nscd_system_last_error(self._handle)  # noqa: E731
        try:
            check(status, function, error)
        except NscdError as exc:
            raise exc from cause

    @property
    def handle(self):
        """The nscd_system pointer (ctypes.c_void_p)."""
        if self._handle is None:
            raise ValueError("the system is closed")
        return self._handle

    @property
    def last_error(self):
        return self._lib.nscd_system_last_error(self._handle).decode()

    def set_contact(self, index, law=None, friction=0.0, n_tangent=0, tangential_restitution=0.0):
        """Sets the law (a ContactLaw; None: Newton e = 0), friction and tangential
        restitution e_T (Newton's law with friction, since 0.2) of a contact."""
        desc = _c.ContactDesc()
        check(self._lib.nscd_contact_desc_init(ctypes.byref(desc), ctypes.sizeof(desc)),
              "nscd_contact_desc_init")
        desc.law = law.handle if law is not None else None
        desc.friction = float(friction)
        desc.n_tangent = _c.int32(n_tangent, "n_tangent")
        desc.tangential_restitution = float(tangential_restitution)
        self._check(self._lib.nscd_system_set_contact(self.handle, _c.int32(index, "index"), ctypes.byref(desc)),
                    "nscd_system_set_contact")
        if 0 <= index < len(getattr(self, "_n_tangent", [])):
            self._n_tangent[index] = desc.n_tangent

    def n_tangent(self, index):
        """Tangential rows of a contact, as last given to set_contact()."""
        rows = getattr(self, "_n_tangent", [])
        return rows[index] if 0 <= index < len(rows) else 0

    @property
    def sizes(self):
        """(n_dof, n_contacts) as the library sees them (a property since the
        properties/methods rule of the package; the old call sizes() still
        works and warns)."""
        n_dof, n_contacts = ctypes.c_int32(), ctypes.c_int32()
        self._check(self._lib.nscd_system_get_sizes(self.handle, ctypes.byref(n_dof),
                                                    ctypes.byref(n_contacts)),
                    "nscd_system_get_sizes")
        return callable_value((n_dof.value, n_contacts.value), "System.sizes()",
                              "System.sizes (a property)")

    def set_state(self, t, q, v):
        """Sets time, positions and velocities (every contact opens again)."""
        n = self.n_dof
        q_arr = (ctypes.c_double * n)(*_floats(q, n, "q"))
        v_arr = (ctypes.c_double * n)(*_floats(v, n, "v"))
        self._check(self._lib.nscd_system_set_state(self.handle, float(t), q_arr, v_arr),
                    "nscd_system_set_state")

    def state(self):
        """(t, q, v) of the current state."""
        n = self.n_dof
        t = ctypes.c_double()
        q = (ctypes.c_double * n)()
        v = (ctypes.c_double * n)()
        self._check(self._lib.nscd_system_get_state(self.handle, ctypes.byref(t), q, v),
                    "nscd_system_get_state")
        return t.value, list(q), list(v)

    def contact(self, index):
        """(gap, normal gap velocity, mode) of a contact at the current state."""
        gap, velocity, mode = ctypes.c_double(), ctypes.c_double(), ctypes.c_int32()
        self._check(self._lib.nscd_system_get_contact(self.handle, _c.int32(index, "index"), ctypes.byref(gap),
                                                      ctypes.byref(velocity),
                                                      ctypes.byref(mode)),
                    "nscd_system_get_contact")
        return gap.value, velocity.value, mode.value

    def equality(self, index):
        """(g, velocity w v) of equality constraint `index` at the current state."""
        g, velocity = ctypes.c_double(), ctypes.c_double()
        self._check(self._lib.nscd_system_get_equality(self.handle, _c.int32(index, "index"), ctypes.byref(g),
                                                       ctypes.byref(velocity)),
                    "nscd_system_get_equality")
        return g.value, velocity.value

    def kinetic_energy(self):
        energy = ctypes.c_double(math.nan)
        self._check(self._lib.nscd_system_kinetic_energy(self.handle, ctypes.byref(energy)),
                    "nscd_system_kinetic_energy")
        return energy.value

    def _destroy(self, handle):
        self._lib.nscd_system_destroy(handle)
