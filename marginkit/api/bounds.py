"""Predicted against observed: each method's proven bound, evaluated with the certified constants of
``problem.constants()``, next to what the run achieved, measured against the certified reference.

``check(problem, result, **options)`` takes the options the run was solved with and returns a dict: the
``theorem``, the ``quantity`` it bounds, the ``bound`` at ``result.iterations``, the ``observed`` value, the
reference's own ``slack``, ``within`` (``observed <= bound + slack``, or None with a ``reason``), the ``kind`` of
bound (deterministic or in expectation) and every ``checks`` evaluated (the keys in full: :func:`check`).
``bound_columns(problem, result)`` gives the two columns ``bound`` and ``within_bound`` of a comparison table, and
``per_record(problem, result)`` the bound and the observed value at every trace record that holds the quantity.

The theorems (the papers' typos are resolved in :func:`ap_linear`, :func:`ap_inertial` and :func:`rb_accelerated`):

* **Ji, Srebro & Telgarsky, *Fast margin maximization via dual acceleration* (ICML 2021), Thm 3.1(1)**
  (``dual-accelerated``; exp loss, ``θ = 1``, ``w_0 = 0``, separable data), rows scaled by ``R = max||x_i||`` (or
  ``max sqrt(k(x_i, x_i))``), in the user's units:
  ``γ* − γ(w_t) <= 4R²(1 + ln n)(1 + 2 ln(t+1))/(γ*(t+1)²)`` for ``t >= 1``.
* **Apidopoulos, Poggio, Rosasco & Villa, *Iterative regularization in classification via hinge loss diagonal
  descent* (2022), Thm 5.1** (``diagonal``; ``γ <= 1/||Q||``, ``u_0 = 0``, ``λ_0||u*||_∞ <= 1``):
  ``||w_t − w*|| <= ||w*|| q^{t/2}`` and ``r_t <= ½||w*||² q^t``, ``q = 1/(1 + γμ)`` with μ of (A.40) from the
  exact Hoffman constant τ and a dual solution ``u*`` inside the first box (:func:`~marginkit.reference.margin.
  dual_solution`); μ is tiny (τ ~ 1e3-1e4 on small sets), so this bound is nearly flat: it is honest, not useful.
* **Apidopoulos et al., Thm 5.2** through its Lyapunov energy (A.63) (``diagonal-inertial``; ``α >= 3``, the same
  hypotheses): ``||w_t − w*|| <= sqrt(2E_1)/(t + α)`` with ``E_1 = α²||w*||²/2 + (α−1)²||u*||²/(2γ)``, where ``t``
  counts the plan's updates (its ``t`` is the paper's ``t + 1``).
* **Raj & Bach, *Explicit regularization of stochastic gradient methods through duality* (AISTATS 2021),
  eq. (8) corrected** (``dykstra-accelerated`` with ``output="v"``, ``α_0 = 0``; row constraints):
  ``E[ψ(θ*) − D(v_t)] <= (2n/(2n+t))² [ψ(θ*) + ½ Σ_i L_i λ*_i²]``, ``t`` coordinate steps, ``λ*`` the dual
  solution of least ``Σ L_i λ_i²`` (an expectation bound: see ``kind``); it is the bound of APCG (Lin, Lu & Xiao
  2015, ``μ = 0``, ``γ_0 = 1/n``) on the ``v``-sequence, in RB's notation with ``λ = −α/n``.
* **Hough & Vavasis, *Data-dependent complexity of first-order methods for binary classification* (2025),
  Thm A.2** (ESP ``fista``, ``x_0 = 0``, normalised data): ``||v_k − v_D|| <= 2||𝒜||·||x̄||/(k+1)``
  and ``f(x_k) − f* <= 2L||x̄||²/(k+1)²`` (Beck, *First-Order Methods in Optimization*, 2017, Thm 10.34);
  **Thm 2.4**: test (28) fires by ``K = 54√2||𝒜||·||x̄||/δ_𝒜² − 1``.
"""
from __future__ import annotations

import math
from typing import Any

import cvxpy as cp
import numpy as np

from ..core.mirror import grad_half_sq_norm
from ..core.result import Result
from ..core.validation import ProblemError
from ..engine.graph import resolve
from ..formulations.base import Problem
from ..operators.ellipsoids import iteration_bounds
from ..reference.base import solve_auxiliary, value_of
from ..reference.hoffman import lojasiewicz_mu
from ..reference.margin import dual_solution

__all__ = ["check", "bound_columns", "per_record", "jst_margin_gap", "ap_linear", "ap_inertial", "rb_accelerated",
           "hv_residual", "hv_objective"]

# which method has which bound is the card's (MethodCard.theorem: its label, these check and record functions and
# the constants they read); the second theorem of the ESP check has its own label here
HV24 = "Hough & Vavasis (2025), Theorem 2.4"


# the bounds as functions of their constants (the tests evaluate them with deliberately wrong constants too) -----
def jst_margin_gap(t: int, n: int, R: float, gamma: float) -> float:
    """JST Thm 3.1(1) in the user's units: ``4R²(1 + ln n)(1 + 2 ln(t+1))/(γ*(t+1)²)``."""
    return 4.0 * R * R * (1.0 + math.log(n)) * (1.0 + 2.0 * math.log(t + 1.0)) / (gamma * (t + 1.0) ** 2)


def ap_linear(t: int, norm_w_star: float, q: float) -> tuple[float, float]:
    """AP Thm 5.1 with ``u_0 = 0``: ``(||w*|| q^{t/2}, ½||w*||² q^t)``, bounds on ``||w_t − w*||`` and ``r_t``.

    Resolved here: the constant of (5.4) is ``C = sqrt(||w_0||² − ||w*||² + 2⟨1, u_0 − u*⟩)`` (the proof's
    ``sqrt(2 r_0)``; the paper prints the inner product without the 2), ``= ||w*||`` at ``u_0 = 0``; the paper's
    hypothesis ``λ_0 <= 1/||u*||`` is used in the form its proof needs, ``λ_0||u*||_∞ <= 1`` (``u*`` is not
    unique)."""
    return norm_w_star * q ** (0.5 * t), 0.5 * norm_w_star ** 2 * q ** t


def ap_inertial(t: int, alpha: float, norm_w_star: float, norm_u_star: float, step: float) -> tuple[float, float]:
    """AP Thm 5.2 from ``E_1`` (``u_0 = u_1 = 0``), after ``t`` updates of the plan (the paper's index ``t + 1``):
    ``(sqrt(2E_1)/(t + α), E_1/(t + α)²)``, bounds on ``||w − w*||`` and ``r``.

    Resolved here: the theorem's constant corresponds to an energy ``E_0`` at index ``k_0 = α − 1``, which its own
    indexing does not define, and (A.66) carries a stray factor ``2γ`` in front of ``r_0`` against (5.23); the
    energy ``E_1`` of the first update is the rigorous start, and (A.63), ``E_{t+1} <= E_t`` for ``t >= 1``,
    carries it to every later ``t``."""
    e1 = 0.5 * alpha ** 2 * norm_w_star ** 2 + (alpha - 1.0) ** 2 * norm_u_star ** 2 / (2.0 * step)
    k = t + alpha
    return math.sqrt(2.0 * e1) / k, e1 / k ** 2


def rb_accelerated(t: int, n: int, gap0: float, weighted_sq: float) -> float:
    """RB eq. (8) corrected: ``(2n/(2n+t))² (gap(α_0) + ½ Σ L_i (λ*_i − α_0,i)²)``, ``t`` coordinate steps.

    Resolved here: eq. (8) as printed, ``E[gap(α_t)] <= (4L_max/t²){(G(α*) − G(0))/L_max + ½||α*||²}``, has an
    n-scaling of its first term that does not match the theorem it rests on (APCG of Lin, Lu & Xiao 2015, with
    ``μ = 0`` and ``γ_0 = 1/n``), and that theorem bounds the ``v``-sequence, not ``α``; the bound here is APCG's,
    in RB's notation with ``λ = −α/n``."""
    return (2.0 * n / (2.0 * n + t)) ** 2 * (gap0 + 0.5 * weighted_sq)


def hv_residual(k: int, opnorm: float, dist0: float) -> float:
    """HV Thm A.2: ``||v_k − v_D|| <= 2||𝒜||·||x_0 − x̄||/(k+1)``."""
    return 2.0 * opnorm * dist0 / (k + 1.0)


def hv_objective(k: int, L: float, dist0: float) -> float:
    """Beck Thm 10.34 (used by HV Thm 2.4): ``f(x_k) − f* <= 2L||x_0 − x̄||²/(k+1)²``."""
    return 2.0 * L * dist0 ** 2 / (k + 1.0) ** 2


# one check ---------------------------------------------------------------------------------------------------------
def _entry(theorem, quantity, bound=None, observed=None, slack=0.0, reason=None, kind="deterministic", **extra):
    within = None
    if reason is None and bound is not None and observed is not None:
        within = bool(observed <= bound + slack)
    out = {"theorem": theorem, "quantity": quantity, "bound": None if bound is None else float(bound),
           "observed": None if observed is None else float(observed), "slack": float(slack), "within": within,
           "kind": kind, "reason": reason}
    out.update(extra)
    return out


class _Run:
    """What a check needs about one run: the problem, the result, the options, the compiled plan (its resolved
    parameters: step, schedule, R, L_i), and the certified reference and constants (computed on first use)."""

    def __init__(self, problem, result, options, theorem):
        self.problem, self.result, self.options = problem, result, dict(options)
        self.label = theorem.label       # the theorem as the tables name it (the card's)
        self._plan = None

    @property
    def plan(self):
        if self._plan is None:
            self._plan = self.problem.compile(self.result.method, **self.options)
        return self._plan

    @property
    def warm(self) -> bool:
        return self.options.get("warm_start") is not None

    def option(self, name, default):
        return self.options.get(name, default)

    @property
    def ref(self):
        return self.problem.reference()

    @property
    def constants(self) -> dict:
        return self.problem.constants()


def _ref_margin_slack(ref, gamma) -> float:
    cert = ref.certificate or {}
    ub = cert.get("margin_upper_bound")
    slack = float(ub) - gamma if ub is not None and np.isfinite(ub) else float(cert.get("relative_gap", 0.0)) * gamma
    return max(slack, 0.0) + 1e-9 * gamma


def _ref_distance_slack(ref, scale) -> float:
    """``||w_ref − w*|| <= sqrt(2·gap)`` (1-strong convexity of ``½||w||²`` on the feasible set)."""
    gap = max(float((ref.certificate or {}).get("duality_gap", 0.0)), 0.0)
    return math.sqrt(2.0 * gap) + 1e-9 * scale


# the theorems (named by the cards: MethodCard.theorem) -------------------------------------------------------------
def jst_checks(run: _Run) -> list[dict]:
    label = run.label
    q = "margin gap gamma* - gamma(w_t) (user units)"
    why = None
    if run.option("loss", "exp") != "exp" or float(run.option("theta", 1.0)) != 1.0:
        why = "Thm 3.1 is for the exponential loss with theta_t = 1 (loss='exp', theta=1)"
    elif run.warm:
        why = "Thm 3.1 starts from w_0 = 0: a warm start is outside its hypotheses"
    elif run.result.iterations < 1:
        why = "Thm 3.1 holds for t >= 1"
    if why is not None:
        return [_entry(label, q, reason=why)]
    ref = run.ref          # the certified margin is all this bound needs (not the costlier constants())
    gamma = float(ref.margin) if ref.status in ("optimal", "optimal_inaccurate") else np.nan
    if not (np.isfinite(gamma) and gamma > 0):
        return [_entry(label, q, reason="Thm 3.1(1) needs separable data (the reference has no positive margin)")]
    t = run.result.iterations
    return [_entry(label, q, jst_margin_gap(t, run.problem.n, run.plan.R, gamma), gamma - run.result.margin,
                   _ref_margin_slack(run.ref, gamma), t=t)]


def _ap_hypotheses(run: _Run, theorem: str) -> tuple[str | None, Any]:
    """The shared hypotheses of AP Thms 5.1/5.2: ``(reason, (γ, u*, ||Z||, ||w*||))``."""
    p = run.problem
    if p.kernel is not None:
        return "the Hoffman constant and u* are computed for linear problems only (no kernel)", None
    if run.warm:
        return f"{theorem} is stated from u_0 = 0 here (a warm start changes r_0 and ||u_0||)", None
    c = run.constants
    if not c.get("margin", 0) > 0:
        return "the data are not separable: there is no dual minimiser u*", None
    plan = run.plan
    opnorm = float(np.linalg.norm(p.X.toarray() if hasattr(p.X, "toarray") else p.X, 2))
    if plan.gamma > (1.0 + 1e-12) / opnorm ** 2:
        return f"the step {plan.gamma:.6g} exceeds 1/||Q|| = {1 / opnorm ** 2:.6g}", None
    lam0 = float(plan.box_schedule.lam(0))
    lstar = c.get("lambda_star", np.nan)
    if not np.isfinite(lstar) or lam0 > lstar * (1.0 - 1e-6):
        return (f"lambda(0) = {lam0:.6g} is not below lambda*_A = {lstar:.6g}: no dual solution u* has "
                f"lambda_0 ||u*||_inf <= 1 (Remark 5.3: the rate starts once lambda_t <= lambda*, from a point "
                f"the theorem does not bound); pass lambda0 <= lambda_star"), None
    a = dual_solution(p, cap=1.0 / lam0)
    if a is None:
        return "no dual solution u* with lambda_0 ||u*||_inf <= 1 was found", None
    return None, (plan.gamma, float(np.linalg.norm(a)), opnorm, float(np.linalg.norm(run.ref.w)))


def _ap_observed(run: _Run):
    """``(||w_t − w*||, r_t)`` from the run's dual iterate (``result.w`` is rescaled onto the constraint set)."""
    a = np.asarray(run.result.dual["a"], float)
    p = run.problem
    w = np.asarray(p.X.T @ (a * p.y)).ravel()
    wstar = np.asarray(run.ref.w, float)
    r = 0.5 * float(w @ w) - float(a.sum()) + 0.5 * float(wstar @ wstar)
    return float(np.linalg.norm(w - wstar)), r


def _ap_entries(run: _Run, why, bounds=None, norm_w=None, **extra) -> list[dict]:
    """The two AP checks, ``||w_t − w*||`` and ``r_t``: their ``bounds`` at ``t``, or ``why`` they do not apply."""
    qd, qr = "||w_t - w*|| (user units)", "r_t = D_t(u_t) - D_inf(u*)"
    if why is not None:
        return [_entry(run.label, qd, reason=why), _entry(run.label, qr, reason=why)]
    od, orr = _ap_observed(run)
    gap, t = max(float((run.ref.certificate or {}).get("duality_gap", 0.0)), 0.0), run.result.iterations
    return [_entry(run.label, qd, bounds[0], od, _ref_distance_slack(run.ref, norm_w), t=t, **extra),
            _entry(run.label, qr, bounds[1], orr, gap + 1e-9 * norm_w ** 2, t=t, **extra)]


def ap_linear_checks(run: _Run) -> list[dict]:
    why, consts = _ap_hypotheses(run, "Theorem 5.1")
    tau = run.constants.get("hoffman_dual") or {} if why is None else {}
    if why is None and not tau.get("exact"):
        why = "the Hoffman constant tau is not exact at this size: " + str(tau.get("reason", ""))
    if why is not None:
        return _ap_entries(run, why)
    step, norm_u, opnorm, norm_w = consts
    mu = lojasiewicz_mu(tau["value"], norm_w, norm_u, opnorm)
    q = 1.0 / (1.0 + step * mu)
    return _ap_entries(run, None, ap_linear(run.result.iterations, norm_w, q), norm_w, rate=q, mu=mu)


def ap_inertial_checks(run: _Run) -> list[dict]:
    alpha = float(run.option("alpha", 10.0))
    why, consts = (f"alpha = {alpha:g} < 3: Theorem 5.2 needs alpha >= 3", None) if alpha < 3 else \
        _ap_hypotheses(run, "Theorem 5.2")
    if why is not None:
        return _ap_entries(run, why)
    step, norm_u, _, norm_w = consts
    return _ap_entries(run, None, ap_inertial(run.result.iterations, alpha, norm_w, norm_u, step), norm_w)


def _rb_constants(run: _Run):
    """``(n, L, ψ(θ*), Σ L_i λ*_i², slack)`` of RB eq. (8) for the run's form, or a reason (str)."""
    plan = run.plan
    sysm = getattr(plan, "system", None)
    if sysm is None or not hasattr(sysm, "X"):
        return "the bound is evaluated for row constraints (MinNormFeasibility, MaxMargin); not for sets"
    form = plan.form
    ref = run.ref
    theta = None if ref.w is None else np.asarray(ref.w, float)
    if theta is None or ref.status not in ("optimal", "optimal_inaccurate"):
        return f"the reference has no optimum (status {ref.status})"
    psi = float(form.objective(theta))
    g = grad_half_sq_norm(theta, plan.p) - plan.u0
    X = sysm.X.toarray() if hasattr(sysm.X, "toarray") else np.asarray(sysm.X, float)
    rows = sysm.s[:, None] * X
    scale = max(float(np.linalg.norm(g)), 1e-300)
    if sysm.margin:
        active = np.flatnonzero(rows @ theta <= 1 + 1e-4)
    else:
        active = np.arange(sysm.n)
    # Σ a_i λ_i = ∇ψ(θ*) − u0 holds only to the reference's accuracy: first the least residual, then the least
    # Σ L_i λ_i² within (about) that residual
    lam = cp.Variable(len(active), nonneg=bool(sysm.margin))
    residual = cp.norm(rows[active].T @ lam - g, 2)
    first = cp.Problem(cp.Minimize(residual))
    solve_auxiliary(first)
    r0 = first.value if first.status in ("optimal", "optimal_inaccurate") and first.value is not None else np.inf
    w = np.sqrt(sysm.L[active])
    prob = cp.Problem(cp.Minimize(cp.sum_squares(cp.multiply(w, lam))), [residual <= 1.01 * r0 + 1e-7 * scale])
    if np.isfinite(r0):
        solve_auxiliary(prob)
    if not np.isfinite(r0) or prob.status not in ("optimal", "optimal_inaccurate") or value_of(lam) is None:
        return "the least-weighted-norm dual solution lambda* was not found"
    weighted = float(np.sum(sysm.L[active] * np.asarray(value_of(lam)) ** 2))
    gap = max(float((ref.certificate or {}).get("duality_gap", 0.0)), 0.0)
    return sysm.n, psi, weighted, gap + 1e-9 * abs(psi)


def rb_checks(run: _Run) -> list[dict]:
    label = run.label
    quantity = "dual gap psi(theta*) - D(v_t) after t coordinate steps"
    why = None
    if run.option("output", "v") != "v":
        why = "eq. (8) bounds the v-sequence (output='v'); theta(alpha_t) has no rate guarantee"
    elif run.warm:
        why = "the bound is evaluated from alpha_0 = 0 (no warm start)"
    elif ((run.result.certificate or {}).get("screened") or {}).get("removed", 0):
        why = "eq. (8) bounds a run without screening (a screen restarts Algorithm 2 on the live constraints)"
    consts = None if why else _rb_constants(run)
    if isinstance(consts, str):
        why = consts
    if why is not None:
        return [_entry(label, quantity, reason=why, kind="expectation")]
    n, psi, weighted, slack = consts
    t = int(run.result.info.get("coordinate_steps", run.result.iterations * n))
    dual = (run.result.certificate or {}).get("dual")
    if dual is None or not np.isfinite(dual):
        return [_entry(label, quantity, reason="the result has no dual value", kind="expectation")]
    bound = rb_accelerated(t, n, psi, weighted)
    obs = psi - float(dual)
    return [_entry(label, quantity, bound, obs, slack, kind="expectation", t=t,
                   markov_probability=min(1.0, bound / obs) if obs > 0 else None,
                   note="one realisation of a random run against a bound on its expectation")]


def _hv_xbar(run: _Run) -> float | None:
    """``||x_0 − x̄||`` for ``x_0 = 0``: the norm of the reference's point ``x̄`` of (5) (its SOC duals)."""
    xbar = run.constants.get("x_bar_norm")
    dual = run.ref.dual
    if xbar is None and isinstance(dual, dict) and "x_c" in dual:
        xbar = float(np.sqrt(np.sum(dual["x_c"] ** 2) + np.sum(dual["x_d"] ** 2)))
    return xbar


def hv_checks(run: _Run) -> list[dict]:
    label = run.label
    qv, qf, qk = ("||v_k - v_D|| (normalised data)", "f(x_k) - f* (normalised data)",
                  "iterations until test (28) certifies a separator")
    c, res = run.constants, run.result
    why = "Theorems A.2 and 2.4 are evaluated from x_0 = 0 (no warm start)" if run.warm else None
    ref = run.ref
    xbar = _hv_xbar(run)
    if why is None and (xbar is None or "residual" not in res.info):
        why = "the reference has no optimal point x_bar of (5), or the result has no residual"
    if why is not None:
        return [_entry(label, qv, reason=why), _entry(label, qf, reason=why), _entry(HV24, qk, reason=why)]
    k = res.iterations
    vD = np.zeros(len(res.info["residual"])) if c.get("v_D") is None else np.asarray(c["v_D"], float)
    v = np.asarray(res.info["residual"], float)
    gap = max(float((ref.certificate or {}).get("duality_gap", 0.0)), 0.0)
    dv = math.sqrt(2.0 * gap) + 1e-12
    nvD = float(np.linalg.norm(vD))
    early = k < 1
    out = [_entry(label, qv, hv_residual(k, c["opnorm_A"], xbar), float(np.linalg.norm(v - vD)), dv,
                  reason="Theorem A.2's rate holds for k >= 1" if early else None, k=k),
           _entry(label, qf, hv_objective(k, c["L"], xbar), 0.5 * float(v @ v) - 0.5 * nvD ** 2,
                  nvD * dv + 0.5 * dv * dv, reason="the FISTA rate holds for k >= 1" if early else None, k=k)]
    K = iteration_bounds(c["opnorm_A"], xbar, nvD, c.get("delta_normalized", 0.0))["iteration_bound"] \
        if c.get("separable") else np.inf
    separated = bool(res.info.get("orientation"))
    if not c.get("separable"):
        out.append(_entry(HV24, qk, reason="Theorem 2.4 needs strictly separable ellipsoids"))
    elif separated and run.option("stop", "early") == "early":
        out.append(_entry(HV24, qk, K, k, 0.0))
    elif k >= K and run.option("stop", "early") == "early":
        # test (28) was checked at every iterate up to k >= K and never fired: the first iteration it still could
        # is k + 1 > K, a violation of the theorem
        out.append(_entry(HV24, qk, K, k + 1, 0.0, note=f"no separator through iteration {k}"))
    else:
        out.append(_entry(HV24, qk, K, None, reason="no separator yet and the run stopped before the bound "
                                                     "(or stop='tol'): nothing to compare", bound_only=True))
    return out


# the bound at every trace record: (bound, observed) arrays, or a reason (str) when the trace cannot be checked ----
def jst_records(run: _Run, c: dict, it: np.ndarray, tr) -> tuple | str:
    gamma = float(run.ref.margin)
    bound = np.array([jst_margin_gap(t, run.problem.n, run.plan.R, gamma) if t >= 1 else np.nan for t in it])
    return bound, gamma - tr["margin"]


def ap_linear_records(run: _Run, c: dict, it: np.ndarray, tr) -> tuple | str:
    if "dist_to_opt" not in tr:
        return "the trace has no dist_to_opt: compute problem.reference() before solving"
    return np.array([ap_linear(t, run.constants["norm_w"], c["rate"])[0] for t in it]), tr["dist_to_opt"]


def ap_inertial_records(run: _Run, c: dict, it: np.ndarray, tr) -> tuple | str:
    if "dist_to_opt" not in tr:
        return "the trace has no dist_to_opt: compute problem.reference() before solving"
    _, consts = _ap_hypotheses(run, "Theorem 5.2")
    step, norm_u, _, norm_w = consts
    alpha = float(run.option("alpha", 10.0))
    return np.array([ap_inertial(t, alpha, norm_w, norm_u, step)[0] for t in it]), tr["dist_to_opt"]


def rb_records(run: _Run, c: dict, it: np.ndarray, tr) -> tuple | str:
    n, psi, weighted, _ = _rb_constants(run)
    return np.array([rb_accelerated(t * n, n, psi, weighted) for t in it]), psi - tr["dual_objective"]


def hv_records(run: _Run, c: dict, it: np.ndarray, tr) -> tuple | str:
    cst = run.constants
    xbar = _hv_xbar(run)
    f_star = 0.5 * float(np.linalg.norm(cst["v_D"])) ** 2 if cst.get("v_D") is not None else 0.0
    bound = np.array([hv_objective(t, cst["L"], xbar) if t >= 1 else np.nan for t in it])
    return bound, tr["objective"] - f_star, "f(x_k) - f* (normalised data)"


# the public functions ----------------------------------------------------------------------------------------------
def check(problem, result, **options) -> dict:
    """The proven bound of ``result.method`` at ``result.iterations``, evaluated with ``problem.constants()``,
    next to the achieved value. ``options``: the method's options the run used (the method's parameters and
    ``warm_start``, e.g. ``lambda0=``, ``alpha=``); omitted ones are the method's defaults (a ``Result`` does not
    record them). Bad input (not a ``Result``, a method that does not apply to the problem, options the method
    rejects) is a ``ProblemError``. The dict returned:

    * ``theorem`` -- paper and number; ``quantity`` -- what the theorem bounds, in the units it is measured in;
    * ``bound`` -- the bound at ``result.iterations`` (coordinate steps for Raj–Bach), ``observed`` -- that quantity
      measured on the result against the reference, ``slack`` -- the reference's own accuracy on that quantity;
    * ``within`` -- ``observed <= bound + slack`` (a bool), or None when the theorem does not apply to this run (a
      hypothesis fails, a constant is not exact, the method has no bound with explicit constants), with ``reason``;
    * ``kind`` -- ``"deterministic"``, or ``"expectation"`` for a bound on an expected value: ``observed`` is then
      one realisation, which may exceed the bound (by Markov's inequality, with probability at most
      ``bound/observed``);
    * ``checks`` -- every bound evaluated for the method (the first is the one above)."""
    if not isinstance(result, Result):
        raise ProblemError(f"result must be a marginkit Result; got {type(result).__name__}")
    if not isinstance(problem, Problem):
        raise ProblemError(f"problem must be a marginkit problem; got {type(problem).__name__}")
    card, _ = resolve(problem, result.method)   # ProblemError when the method does not apply to the problem
    if card.is_reference:
        return _summary([_entry("CVXPY reference", "-", reason="the reference is certified by its own duality "
                                                               "gap (result.certificate), not by a rate")])
    if card.theorem is None:
        return _summary([_entry(None, "-", reason=f"no proven bound with explicit constants is evaluated for "
                                                   f"{result.method!r} (its card: {card.rate or 'no rate'})")])
    if result.status == "solver_error":
        return _summary([_entry(None, "-", reason="the run ended in solver_error: no iterate to compare")])
    ref = problem.reference()
    if ref.status not in ("optimal", "optimal_inaccurate", "infeasible"):
        return _summary([_entry(None, "-", reason=f"the certified reference is not available (status "
                                                   f"{ref.status}): nothing to measure against")])
    return _summary(card.theorem.load("check")(_Run(problem, result, options, card.theorem)))


def _summary(checks: list[dict]) -> dict:
    out = dict(checks[0])
    out["checks"] = checks
    return out


def bound_columns(problem, result, **options) -> dict:
    """``{"bound": ..., "within_bound": ...}`` for a row of :func:`~marginkit.cross_validate`'s table (None when the
    method has no bound or its hypotheses do not hold); never raises on a run that cannot be checked."""
    try:
        c = check(problem, result, **options)
    except (ProblemError, ValueError, ArithmeticError):   # a table row shows "no bound", it never stops the table
        return {"bound": None, "within_bound": None}
    return {"bound": c["bound"], "within_bound": c["within"]}


def per_record(problem, result, **options) -> dict:
    """The primary bound and the observed value at each trace record that holds the quantity: a dict of equal-length
    arrays ``iteration``, ``bound``, ``observed``, ``within`` (NaN / None where not available), plus ``theorem``
    and ``quantity``; ``reason`` when no record can be checked. The margin gap (JST) comes from the ``margin``
    column, ``||w_t − w*||`` (AP) from ``dist_to_opt`` (present when the reference was computed before the run),
    the dual gap (RB) from ``dual_objective``, ``f(x_k) − f*`` (HV) from ``objective``."""
    c = check(problem, result, **options)
    tr = result.trace
    base = {"theorem": c["theorem"], "quantity": c["quantity"]}
    if c["reason"] is not None or tr is None or not len(tr):
        return {**base, "reason": c["reason"] or "the result has no trace"}
    it = tr["iteration"].astype(int)
    theorem = resolve(problem, result.method)[0].theorem   # check() returned a reason when there is none
    run = _Run(problem, result, options, theorem)
    records = theorem.load("records")(run, c, it, tr)
    if isinstance(records, str):
        return {**base, "reason": records}
    bound, obs = records[:2]
    if len(records) > 2:     # the records hold another quantity than the primary check (HV: f(x_k) − f*)
        base["quantity"] = records[2]
    within = [None if not np.isfinite(b) or not np.isfinite(o) else bool(o <= b + c["slack"])
              for b, o in zip(bound, obs)]
    return {**base, "iteration": it, "bound": bound, "observed": np.asarray(obs, float), "within": within}
