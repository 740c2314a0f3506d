"""The independent reference of seed 003's model problem (tools/reference/model_problem.py)
checks itself against the analytic solution and the schemes' known properties, so that the
library's time steppers can later be compared with it."""
import importlib.util
import os

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "tools", "reference", "model_problem.py")


@pytest.fixture(scope="module")
def ref():
    spec = importlib.util.spec_from_file_location("model_problem", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_exact_solution_satisfies_the_equations(ref):
    for model in ("a", "b"):
        M, K, f = ref.chain(model)
        assert np.allclose(ref.exact(model, 0.0), 0.0, atol=1e-12)
        h = 1e-4  # q'' by central differences: M q'' + K q = f
        for t in (0.7, 3.0):
            qdd = (ref.exact(model, t + h) - 2 * ref.exact(model, t) + ref.exact(model, t - h)) / h**2
            residual = M @ qdd + K @ ref.exact(model, t) - f
            assert np.max(np.abs(residual)) < 1e-4 * (1.0 if model == "b" else 1e7)
    assert ref.constraint_force(0.0) == pytest.approx(-ref.GAMMA)


@pytest.mark.parametrize("name, parameter, order", [
    ("generalized_alpha", 1.0, 2.0), ("generalized_alpha", 0.0, 2.0), ("bathe", None, 2.0),
    ("moreau_jean", 0.5, 2.0), ("moreau_jean", 1.0, 1.0), ("moreau_midpoint", None, 2.0),
    ("hets", None, 2.0),
    ("ed_alpha", 0.0, 3.0), ("ed_alpha", 0.8, 3.0)])
def test_observed_orders(ref, name, parameter, order):
    dts = [4e-3, 2e-3, 1e-3]
    errors = [np.max(np.abs(ref.run("b", name, parameter, dt, 2.0) - ref.exact("b", 2.0)))
              for dt in dts]
    observed = np.polyfit(np.log(dts), np.log(errors), 1)[0]
    assert observed == pytest.approx(order, abs=0.1)


def test_stability_on_the_stiff_model(ref):
    # omega h = sqrt(1e7) 1e-3 = 3.16 > 2: the explicit midpoint rule blows up, the implicit
    # schemes do not
    assert ref.run("a", "moreau_midpoint", None, 1e-3, 1.0) is None
    assert ref.run("a", "hets", None, 1e-3, 1.0) is None
    for name, parameter in (("generalized_alpha", 0.8), ("bathe", None), ("moreau_jean", 0.5)):
        assert ref.run("a", name, parameter, 1e-3, 1.0) is not None


@pytest.mark.parametrize("name", ["generalized_alpha", "ed_alpha"])
@pytest.mark.parametrize("rho_inf", [0.0, 0.5, 0.8, 1.0])
def test_spectral_radius_at_infinity(ref, name, rho_inf):
    rho, _ = ref.spectral_properties(name, rho_inf, 1e6)
    assert rho == pytest.approx(rho_inf, abs=1e-3)


@pytest.mark.parametrize("h", [1e-2, 1e-3])
def test_ed_alpha_condensed_form_needs_the_corrected_c7_c14(ref, h):
    """Eqs. (86)-(90) with c_7 = -c_14 = (1 - alpha)/(1 + alpha) are the defining equations
    (77)-(82) with the accelerations eliminated; the printed c_7, c_14 (with 1/dt) are not."""
    M, K, f = ref.chain("b")
    direct, start = ref.ed_alpha_step(M, K, f, h, 0.5)
    X0 = start(np.zeros(2), np.array([0.3, -0.2]))
    for printed, close in ((False, True), (True, False)):
        condensed, _ = ref.ed_alpha_condensed_step(M, K, f, h, 0.5, printed)
        X, Y = X0.copy(), X0.copy()
        for _ in range(3):
            X, Y = direct(X), condensed(Y)
        assert (np.max(np.abs(X - Y)) < 1e-9) == close


def test_bathe_and_trapezoidal_limits(ref):
    assert ref.spectral_properties("bathe", None, 1e6)[0] < 1e-3  # L-stable
    assert ref.spectral_properties("moreau_jean", 0.5, 1e3)[0] == pytest.approx(1.0)
    # relative period error of the trapezoidal rule: Omega^2 / 12 for small Omega
    assert ref.spectral_properties("moreau_jean", 0.5, 0.1)[1] == pytest.approx(0.01 / 12, rel=0.01)


def test_hets_stability_limit_and_damped_order(ref):
    """HETS is explicit: spectral radius 1 (undamped) up to Omega = 2, above 1 beyond;
    second order on a damped oscillator (where it is not the midpoint rule's map)."""
    assert ref.spectral_properties("hets", None, 1.99)[0] == pytest.approx(1.0, abs=1e-9)
    assert ref.spectral_properties("hets", None, 2.01)[0] > 1.1
    m, c, k = 1.0, 0.4, 4.0  # q'' + 0.4 q' + 4 q = 0 from q = 1, v = 0
    wd = np.sqrt(k - c * c / 4.0)
    s = c / 2.0

    def exact(t):
        return np.exp(-s * t) * (np.cos(wd * t) + s / wd * np.sin(wd * t))

    errors, dts = [], [1e-2, 5e-3, 2.5e-3]
    for h in dts:
        step, start = ref.hets_step(np.eye(1), np.array([[k]]), np.zeros(1), h,
                                    np.array([[c]]))
        X = start(np.ones(1), np.zeros(1))
        for _ in range(int(round(2.0 / h))):
            X = step(X)
        errors.append(abs(X[0] - exact(2.0)))
    observed = np.polyfit(np.log(dts), np.log(errors), 1)[0]
    assert observed == pytest.approx(2.0, abs=0.1)
    # without damping, HETS's map is the midpoint rule's (Stoermer-Verlet)
    M, K, f = ref.chain("b")
    midpoint, _ = ref.moreau_midpoint_step(M, K, f, 1e-2)
    hets, _ = ref.hets_step(M, K, f, 1e-2)
    X0 = np.array([0.3, -0.2, 1.0, 0.5])
    assert np.max(np.abs(hets(X0) - midpoint(X0))) < 1e-14
