"""Compliant contact helpers and the contact-law constructors through the
package, against the closed forms of seed 001 (values of tests/unit)."""
import math

import numpy as np
import pytest

import nscd
from nscd import ContactLaw, NscdError, Status


def test_copt_closed_form_eq57():
    # n = 1: c = 1.4181 (e^-0.44 - 1) sqrt(k m) (tests/unit/test_copt.c).
    m, k, v, e = 2.0, 3e6, 0.7, 0.25
    c = nscd.copt_closed_form(m, k, 1.0, v, e)
    assert c == pytest.approx(1.4181 * (e ** -0.44 - 1.0) * math.sqrt(k * m), rel=1e-12)
    assert nscd.copt_closed_form(1.0, 1e6, 1.5, 1.0, 1.0) == 0.0


@pytest.mark.parametrize("e", [0.1, 0.5, 0.9])
def test_copt_exact_restitutes_e_kelvin_voigt(e):
    # n = 1: the Hertz-damper is Kelvin-Voigt, whose restitution is exact.
    m, k = 0.8, 5e6
    c = nscd.copt_exact(m, k, 1.0, 1.3, e)
    assert nscd.kelvin_voigt_restitution(c / (2.0 * math.sqrt(k * m))) == pytest.approx(e, abs=1e-9)


def test_kelvin_voigt_restitution_closed_forms():
    assert nscd.kelvin_voigt_restitution(0.0) == 1.0
    assert nscd.kelvin_voigt_restitution(1.0) == pytest.approx(math.exp(-2.0), rel=1e-15)
    assert nscd.kelvin_voigt_restitution(math.sqrt(0.5)) == pytest.approx(math.exp(-math.pi / 2),
                                                                          rel=1e-14)
    xi = 0.3
    w = math.sqrt(1 - xi * xi)
    expected = math.exp(-xi / w * math.atan2(2 * xi * w, 2 * xi * xi - 1))
    assert nscd.kelvin_voigt_restitution(xi) == pytest.approx(expected, rel=1e-14)
    with pytest.raises(NscdError) as info:
        nscd.kelvin_voigt_restitution(-1.0)
    assert info.value.status == Status.ERR_OUT_OF_RANGE


def test_hunt_crossley_factors():
    k, e, v = 1e7, 0.6, 2.0
    assert nscd.hunt_crossley_factor(nscd.HcModel.HUNT_CROSSLEY, k, e, v) == pytest.approx(
        3 * k * (1 - e) / (2 * v), rel=1e-15)
    assert nscd.hunt_crossley_factor(nscd.HcModel.LANKARANI_NIKRAVESH, k, e, v) == pytest.approx(
        3 * k * (1 - e * e) / (4 * v), rel=1e-15)
    assert nscd.hunt_crossley_factor(nscd.HcModel.HU_GUO, k, e, v) == pytest.approx(
        3 * k * (1 - e) / (2 * e * v), rel=1e-15)
    assert nscd.hunt_crossley_factor(nscd.HcModel.FLORES, k, e, v) == pytest.approx(
        8 * k * (1 - e) / (5 * e * v), rel=1e-15)
    with pytest.raises(NscdError) as info:
        nscd.hunt_crossley_factor(99, k, e, v)
    assert info.value.status == Status.ERR_INVALID_ARGUMENT
    with pytest.raises(NscdError) as info:
        nscd.hunt_crossley_factor(1, k, math.nan, v)
    assert info.value.status == Status.ERR_NOT_FINITE


@pytest.mark.parametrize("n", [1.0, 1.5, 2.0])
def test_central_impact_undamped_hertz(n):
    # eq. 27 and the Beta-function duration (tests/unit/test_central_impact.c).
    k, m, v = 2e7, 0.4, 3.0
    with ContactLaw.hertz_damper(k, n, 1.0, nscd.CoptMethod.EXACT) as law:
        assert law.name == "hertz_damper" and law.kind == 2  # NSCD_LAW_COMPLIANT
        r = nscd.central_impact(law, m, v)
    dm = ((n + 1) * m * v * v / (2 * k)) ** (1 / (n + 1))
    a = 1 / (n + 1)
    duration = 2 * dm / v * math.gamma(a) * math.gamma(0.5) / math.gamma(a + 0.5) / (n + 1)
    assert r.e_out == pytest.approx(1.0, abs=1e-10)
    assert r.max_penetration == pytest.approx(dm, rel=1e-10)
    assert r.duration == pytest.approx(duration, rel=1e-9)
    assert r.peak_force == pytest.approx(k * dm ** n, rel=1e-6)
    assert r.damping == 0.0 and r.steps > 0


def test_central_impact_of_each_compliant_law():
    m, v, k = 0.7, 2.0, 1e8
    with ContactLaw.hertz_damper(k, 1.5, 0.4, nscd.CoptMethod.EXACT,
                                 nscd.Indentation.PERMANENT) as law:
        r = nscd.central_impact(law, m, v)
        assert r.e_out == pytest.approx(0.4, abs=1e-9)
        assert r.damping == pytest.approx(nscd.copt_exact(m, k, 1.5, v, 0.4), rel=1e-15)
        # eq. 51: residual penetration (v c e / k)^(1/n)
        assert r.residual_penetration == pytest.approx((v * r.damping * 0.4 / k) ** (1 / 1.5),
                                                       rel=1e-8)
    with ContactLaw.hunt_crossley(k, 1.5, 0.8, nscd.HcModel.GONTHIER) as law:
        assert law.name and law.kind == 2
        assert nscd.central_impact(law, m, v).e_out == pytest.approx(0.8, abs=1e-6)
    c = 300.0
    with ContactLaw.kelvin_voigt(k, c) as law:
        xi = c / (2 * math.sqrt(k * m))
        assert nscd.central_impact(law, m, v).e_out == pytest.approx(
            nscd.kelvin_voigt_restitution(xi), abs=1e-9)
    with ContactLaw.spring_damper(k, 1.0, c) as law:  # n = 1: the same impact
        assert nscd.central_impact(law, m, v).e_out == pytest.approx(
            nscd.kelvin_voigt_restitution(xi), abs=1e-9)


def test_impulsive_laws():
    for make, name in ((ContactLaw.poisson, "poisson"), (ContactLaw.routh, "routh")):
        with make(0.5) as law:
            assert law.name == name and law.kind == 1  # NSCD_LAW_IMPULSIVE
        with pytest.raises(NscdError) as info:
            make(1.5)
        assert info.value.status == Status.ERR_OUT_OF_RANGE
    with ContactLaw.newton(0.5) as law:
        with pytest.raises(NscdError) as info:
            nscd.central_impact(law, 1.0, 1.0)
        assert info.value.status == Status.ERR_UNSUPPORTED


def test_compliant_law_bad_parameters():
    with pytest.raises(NscdError) as info:
        ContactLaw.hertz_damper(-1.0, 1.5, 0.5)
    assert info.value.status == Status.ERR_OUT_OF_RANGE
    with pytest.raises(NscdError) as info:
        ContactLaw.hertz_damper(1e6, 1.5, 0.5, method=7)
    assert info.value.status == Status.ERR_INVALID_ARGUMENT
    with pytest.raises(NscdError) as info:
        ContactLaw.kelvin_voigt(1e6, math.inf)
    assert info.value.status == Status.ERR_NOT_FINITE
    with pytest.raises(NscdError) as info:
        ContactLaw.spring_damper(1e6, 3.0, 1.0)
    assert info.value.status == Status.ERR_OUT_OF_RANGE


def test_poisson_law_in_a_system():
    # A ball dropped on the ground: a single frictionless Poisson contact acts
    # like Newton's law, v+ = -e v-.
    with nscd.System(1, n_contacts=1, mass=lambda q: [1.0], forces=lambda t, q, v: [-9.81],
                     contact=lambda i, t, q: (q[0], [1.0])) as system, \
            ContactLaw.poisson(0.5) as law:
        system.set_contact(0, law)
        system.set_state(0.0, [1.0], [0.0])
        events = []
        with nscd.EventDriven(system, on_event=events.append) as stepper:
            stepper.advance(0.5)
        impact = next(ev for ev in events if ev.type == nscd.EventType.IMPACT)
        vb, va = impact.gap_velocity_before[0], impact.gap_velocity_after[0]
        assert vb == pytest.approx(-math.sqrt(2 * 9.81), rel=1e-6)
        assert va == pytest.approx(-0.5 * vb, rel=1e-12)
        np.testing.assert_allclose(impact.impulse[0], 1.5 * -vb, rtol=1e-12)
