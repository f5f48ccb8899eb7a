"""Ellipsoid separation by FISTA and PDHG with data-dependent early stopping (Hough & Vavasis 2025, §2 and §4.1).

Reference: M. Hough, S. A. Vavasis, *Data-dependent complexity of first-order methods for binary classification*
(2025): the ESP (1)–(5) of §2.1–2.2, Theorems 2.1–2.4 of §2.3–2.4, FISTA with test (28) in §4.1, PDHG (29) in
App. A.1.

* The data are normalised by (1) (:mod:`marginkit.operators.ellipsoids`); the dual variable
  ``x = ((λ_i, p_i)_{i<=j}, (μ_i, q_i)_{i<=l})`` lives in the product of second-order cones ``𝒞``.
* ``fista`` (:class:`ESPFista`) runs FISTA (:mod:`marginkit.plans.common.fista`) on the least-squares
  reformulation (5), ``min ½||𝒜x − b||²`` s.t. ``x ∈ 𝒞``; ``pdhg`` (:class:`ESPPdhg`) runs PDHG (29) on
  ``{𝒜x = b, x ∈ 𝒞}``.
* The separator is read off the residual ``v_k = b − 𝒜x_k`` (Theorem 2.2: ``v_k → v_D``) and certified by test
  (28); ``3||v_k|| <= tol`` without a separator proves ``δ_𝒜 <= tol`` (Theorem 2.3); Theorem 2.4 bounds the
  number of iterations (``info["iteration_bound"]``, from the problem's cached constants only).
* ``δ_𝒜 <= tol`` does not exclude separability, so it is ``infeasible_inaccurate``; ``infeasible`` needs a proof
  that the convex hulls of the C- and D-ellipsoids meet (then no hyperplane separates them, strictly or not):
  :func:`intersection_proof` finds a point of both hulls as convex combinations of points inside the ellipsoids
  (centres and the axis points ``c_i ± A_i e_k``) by a small LP, polishes the LP's support by a least-squares
  solve, and accepts it when the two combinations agree to rounding level. It is the primal point the dual
  residual ``v_D = 0`` of Theorem 2.2 speaks of, made exact.

Paper symbols: the FISTA momentum scalar is ``theta`` (the paper's ``t_k`` of §4.1, which also names the second
component of the residual ``v_k = (s_k, t_k, w_k)``).

Where the ellipsoids live (issue 13): the plans are written once against the problem's backend
(:mod:`marginkit.core.backend`). On ellipsoids of another array-API library (torch, CuPy, array-api-strict) they keep
the dual blocks ``x_c``, ``x_d``, ``𝒜x``, FISTA's ``y`` and PDHG's ``y_k`` and displacement in that namespace and on
that device (:class:`~marginkit.operators.ellipsoids.ESPOperator` and the SOC projection compute there); a step never
synchronises (the gradient-mapping norm is a 0-d device array, ``θ`` a Python number). Scalars reach the host in
``stop``/``measure``/``solution`` only (test (28), ``||v_k||``, ``f``), each as one small copy; ``||𝒜||²`` is
Lanczos at setup with a ``(d+2)``-vector copied per product; the intersection proof and Theorem 2.4's bound run
on host copies (:meth:`~marginkit.EllipsoidSeparation.to_host`), as the CVXPY reference does. ``Result.w`` and the
dual blocks come back in the user's namespace (``Result.to_numpy()`` gives host copies).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core.backend import NUMPY
from ...core.params import Boolean, Interval, Options
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import parse_warm_start
from ...engine.runloop import IterationPlan
from ...operators.ellipsoids import esp_operator, iteration_bounds
from ...operators.projections import project_soc_rows
from ..common.fista import Momentum, MomentumRule, Point, fista_step
from ..common.margin import data_cached

PROOF_MAX_POINTS = 50_000   # inner points of the ellipsoids in the LP of :func:`intersection_proof`
PROOF_RTOL = 1e-11          # the two hull points must agree to this (normalised data: every point has norm <= 2)


def _inner_points(centers, shapes, diagonal: bool, axes: bool) -> np.ndarray:
    """Points inside the ellipsoids ``c_i + S_i·B``: the centres and (``axes``) ``c_i ± S_i e_k``."""
    if not axes:
        return centers
    k, d = centers.shape
    cols = (shapes[:, None, :] * np.eye(d)[None]) if diagonal else shapes.transpose(0, 2, 1)  # (k, d, d): S_i e_k
    pts = np.concatenate([centers[:, None, :], centers[:, None, :] + cols, centers[:, None, :] - cols], axis=1)
    return pts.reshape(-1, d)


def intersection_proof(op) -> dict | None:
    """A point of ``conv(∪ C-ellipsoids) ∩ conv(∪ D-ellipsoids)`` (normalised data), or None.

    LP (HiGHS through SciPy): ``Σα_k P_k = Σβ_l Q_l``, ``α, β`` in simplices, over inner points ``P``, ``Q`` of the
    ellipsoids (:func:`_inner_points`); the LP's support is then solved again by least squares (a basic solution
    is determined by its support) and the weights renormalised exactly onto the simplices. Accepted when
    ``||Σα_k P_k − Σβ_l Q_l|| <= PROOF_RTOL``: the hulls are then within rounding of one another. Returns the
    point in the user's coordinates, the two weight vectors and that residual (user units)."""
    try:
        from scipy.optimize import linprog
    except ImportError:  # pragma: no cover
        return None
    axes = (op.j + op.l) * (2 * op.d + 1) <= PROOF_MAX_POINTS
    P = _inner_points(op.c, op.A, op.diagonal, axes)
    Q = _inner_points(op.dc, op.B, op.diagonal, axes)
    npt, nq = len(P), len(Q)
    A_eq = np.vstack([np.hstack([P.T, -Q.T]),
                      np.concatenate([np.ones(npt), np.zeros(nq)])[None],
                      np.concatenate([np.zeros(npt), np.ones(nq)])[None]])
    b_eq = np.concatenate([np.zeros(op.d), [1.0, 1.0]])
    try:
        lp = linprog(np.zeros(npt + nq), A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    except (ValueError, RuntimeError):
        return None
    if lp.status != 0 or lp.x is None:
        return None
    x = np.clip(lp.x, 0.0, None)
    support = np.flatnonzero(x > 0)
    polished = np.linalg.lstsq(A_eq[:, support], b_eq, rcond=None)[0]
    if np.all(polished >= 0):
        x = np.zeros_like(x)
        x[support] = polished
    alpha, beta = x[:npt], x[npt:]
    if alpha.sum() <= 0 or beta.sum() <= 0:
        return None
    alpha, beta = alpha / alpha.sum(), beta / beta.sum()
    zc, zd = P.T @ alpha, Q.T @ beta
    gap = float(np.linalg.norm(zc - zd))
    if not gap <= PROOF_RTOL:
        return None
    return {"intersection_point": 0.5 * (zc + zd) * op.alpha, "hull_weights_c": alpha, "hull_weights_d": beta,
            "intersection_residual": gap * op.alpha, "inner_points": "centres and axes" if axes else "centres"}


@dataclass
class ESPState:
    k: int
    x: Point                  # x_k: blocks (C-rows (λ_i, p_i), D-rows (μ_i, q_i)), image (𝒜x_k,)
    x0: tuple                 # x_0 (Theorem 2.4's ||x_0 − x̄||)
    grad_map: float = np.inf  # ||y_{k−1} − x_k|| (FISTA), ||x_{k−1} − x_k|| (PDHG)
    y: Point = None           # FISTA: the extrapolated y_k and 𝒜y_k (carried by linearity)
    momentum: Momentum = Momentum()   # FISTA: θ_k
    dual: np.ndarray = None   # PDHG: dual iterate y_k (length d + 2)
    disp: np.ndarray = None   # PDHG: displacement y_{k−1} − y_k

    @property
    def xc(self) -> np.ndarray:
        return self.x.blocks[0]

    @property
    def xd(self) -> np.ndarray:
        return self.x.blocks[1]

    @property
    def Ax(self) -> np.ndarray:
        return self.x.images[0]


class _ESPPlan(IterationPlan):
    """Shared by the ESP plans: the normalised operator, the warm start, test (28), the hyperplane and the
    Theorem 2.4 bound. ``iteration_bound=True`` adds ``info["iteration_bound"]`` (Theorem 2.4 with ``δ_𝒜 = M``,
    and the variants of :func:`~marginkit.operators.ellipsoids.iteration_bounds`), read from the problem's cached
    constants (never computed by the plan)."""

    default_max_iter = 5000
    default_tol = 1e-6
    log_columns = ("residual", "objective", "gradient_mapping")

    def setup(self):
        self.bk = getattr(self.form, "backend", NUMPY)   # where the ellipsoids live (core/backend)
        self.op = esp_operator(self.form)
        self.L = self.op.lipschitz()

    def project(self, uc, ud):
        """``proj_𝒞`` of both blocks, where they live: 𝒞 is a product of one cone per row (Beck 2017, Example 6.37), so
        the C-rows and D-rows are projected in one call, as views of one array (half the per-call cost of the small
        arrays of a step)."""
        both = project_soc_rows(self.bk.xp.concat([uc, ud], axis=0), self.bk)
        return both[:self.op.j, :], both[self.op.j:, :]

    def step_norm(self, a: Point, b: Point):
        """``||a − b||`` over both blocks: a float on NumPy, a 0-d array on a device (``bk.float`` reads it at a
        stop)."""
        bk = self.bk
        (ac, ad), (bc, bd) = a.blocks, b.blocks
        return bk.lazy(bk.sqrt(bk.sum((ac - bc) ** 2) + bk.sum((ad - bd) ** 2)))

    def point(self, xc, xd) -> Point:
        return Point((xc, xd), (self.op.forward(xc, xd),))

    def start(self, warm_start) -> Point:
        """``x_0 = 0`` (HV's 2-D runs; their MNIST runs, §4.1, do not state it), or a warm start: a ``Result`` of an
        ESP method (its ``dual["x_c"]``, ``dual["x_d"]``) or a pair of arrays of shapes ``(j, d+1)``, ``(l, d+1)``,
        projected onto ``𝒞``."""
        op = self.op
        if warm_start is None:
            return self.point(*op.zeros())
        shapes = ((op.j, op.d + 1), (op.l, op.d + 1))
        dual = getattr(warm_start, "dual", None)
        pair = (dual.get("x_c"), dual.get("x_d")) if isinstance(dual, dict) else warm_start
        try:
            xc, xd = pair
            ok = xc is not None and xd is not None and np.shape(xc) == shapes[0] and np.shape(xd) == shapes[1]
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ProblemError(f"warm_start must be a Result of an ESP method or a pair of arrays of shapes "
                               f"{shapes[0]} and {shapes[1]}")
        bk = self.bk   # projected on the host (the pair may come from any library), then placed where the data live
        xc, xd = (bk.host(a) if hasattr(a, "shape") else a for a in (xc, xd))
        xc, xd = (parse_warm_start(a, s[0] * s[1], attr=key).reshape(s)
                  for a, s, key in ((xc, shapes[0], "x_c"), (xd, shapes[1], "x_d")))
        return self.point(bk.asarray_d(project_soc_rows(xc)), bk.asarray_d(project_soc_rows(xd)))

    def residual(self, st) -> np.ndarray:
        """``v_k = (s_k, t_k, w_k) = b − 𝒜x_k`` (normalised data)."""
        return self.op.b - st.Ax

    def measure(self, st) -> dict:
        bk, v = self.bk, self.residual(st)
        r, vv = bk.floats(bk.lazy_norm(v), bk.vdot(v, v))
        return {"residual": r, "objective": 0.5 * vv, "gradient_mapping": bk.float(st.grad_map)}

    def snapshot(self, st):
        w = self.bk.host(self.residual(st)[2:])   # a host copy on a device (what the trace probes read)
        nw = np.linalg.norm(w)
        return w / nw if nw > 0 else w.copy()

    def certified_separator(self, st):
        """Test (28) on the residual(s) of this plan: ``(branch, v)`` with ``branch = 0`` when none separates."""
        v = self.residual(st)
        return self.op.test28(v)[0], v

    def infeasible(self, st, tol: float, v=None) -> str | None:
        """``δ_𝒜 <= 3||v_D|| <= 3||v_k|| <= tol`` (Theorem 2.3; ``v_k ∈ b − 𝒜(𝒞)`` and ``v_D`` is its least-norm
        element): ``infeasible`` with the proof of :func:`intersection_proof` (computed once per problem), else
        ``infeasible_inaccurate``; None while ``3||v_k|| > tol``. ``v``: the residual ``v_k`` when the caller has it."""
        if not 3.0 * self.bk.norm(self.residual(st) if v is None else v) <= tol:
            return None
        return "infeasible" if self.proof() is not None else "infeasible_inaccurate"

    def proof(self):
        """The intersection proof, once per problem (on a host copy of device data: an LP after the run)."""
        op = esp_operator(self.form.to_host())
        return data_cached(self.form, "esp_intersection_proof", lambda: intersection_proof(op))

    def solution(self, st, status) -> Solution:
        op = self.op
        branch, v = self.certified_separator(st)
        f = op.objective(st.xc, st.xd)
        lb = op.lower_bound(v)
        rn = self.bk.norm(self.residual(st))
        cert = {"objective": f, "lower_bound": lb, "objective_gap_bound": f - lb,
                "relative_gap": (f - lb) / lb if lb > 0 else np.inf,
                "residual_norm": rn, "gradient_mapping": self.bk.float(st.grad_map),
                "separability_radius_upper": 3.0 * rn * op.alpha}
        info = {"stop": self.config.stop, "orientation": branch, "residual": self.bk.host(self.residual(st)),
                "alpha": op.alpha, "L": self.L}
        if self.iteration_bound:
            info.update(self.bounds(st))
        dual = {"x_c": self.bk.copy(st.xc), "x_d": self.bk.copy(st.xd)}   # in the user's namespace
        if not branch:
            if status == "optimal":
                status = "optimal_inaccurate"
            if status == "infeasible":
                cert.update(self.proof())
            return Solution(w=None, b=np.nan, status=status, certificate=cert, dual=dual, info=info)
        _, mc, md = op.test28(v)
        w, b = op.hyperplane(v, branch)
        cert.update(certified_margin_c=mc * op.alpha, certified_margin_d=md * op.alpha)
        return Solution(w=w, b=b, status=status, certificate=cert, dual=dual, info=info)

    def bounds(self, st) -> dict:
        """Theorem 2.4's iteration bounds for the run started at ``st.x0``, from the problem's constants, only when
        ``constants()`` was already computed: a plan never calls CVXPY (``{}`` otherwise; call
        ``problem.constants()`` first to get them)."""
        c, ref = self.form.cached_constants(), self.form.cached_reference()
        if c is None or ref is None:
            return {}
        if not c.get("separable", False):   # not separable (or the reference failed): no finite bound
            return {"iteration_bound": np.inf, "iteration_bound_both": np.inf, "iteration_bound_v": np.inf}
        (x0c, x0d), xbar = (self.bk.host(a) for a in st.x0), ref.dual
        dist0 = float(np.sqrt(np.sum((x0c - xbar["x_c"]) ** 2) + np.sum((x0d - xbar["x_d"]) ** 2)))
        return iteration_bounds(c["opnorm_A"], dist0, c["v_D_norm"], c["delta_normalized"])


class ESPFista(_ESPPlan):
    """FISTA of HV §4.1 on ``min ½||𝒜x − b||²`` s.t. ``x ∈ 𝒞`` (5), ``L = ||𝒜||²`` from the
    ``(d+2)×(d+2)`` Gram matrix ``𝒜𝒜ᵀ`` (:meth:`ESPOperator.gram`), ``x_0 = 0``::

        x_{k+1} = proj_𝒞(y_k + 𝒜ᵀ(b − 𝒜y_k)/L)
        θ_{k+1} = (1 + sqrt(1 + 4θ_k²))/2,   y_{k+1} = x_{k+1} + ((θ_k − 1)/θ_{k+1})(x_{k+1} − x_k)
        v_{k+1} = (s, t, w) = b − 𝒜x_{k+1},  m_{k+1} = (t − s)/2

    (plain Beck–Teboulle momentum, no restart; ``𝒜y_k`` is carried by linearity, so one ``𝒜`` and one ``𝒜ᵀ``
    product per iteration).

    ``stop="early"`` (default): test (28) on ``v_{k+1}`` -- every C-ellipsoid strictly below ``wᵀz = m`` and every
    D-ellipsoid strictly above (or the reverse) -- is the certificate, and the status is ``optimal``.
    ``stop="tol"``: the paper's baseline of Table 1, the gradient-mapping norm ``||y_k − x_{k+1}|| <= tol``
    (**typo resolved**: §4.1 prints ``proj_𝒞(x + 𝒜ᵀv_k/L)``; the gradient mapping is taken at ``y_k``); the
    status is ``optimal`` only if the certified relative gap ``(f(x) − f_lower)/f_lower <= tol`` with
    ``f_lower > 0`` (see :meth:`~marginkit.operators.ellipsoids.ESPOperator.lower_bound`), else ``optimal_inaccurate``.
    Either way, when ``3||v_k|| <= tol`` without a separator (then ``δ_𝒜 <= tol`` in normalised units) the run
    stops with ``infeasible`` if the hulls provably meet (:func:`intersection_proof`), else ``infeasible_inaccurate``;
    a hyperplane is returned only when (28) certifies it.
    """

    name = "fista"

    @dataclass(frozen=True)
    class Config:
        stop: str = field(default="early", metadata={
            "doc": "test (28) (\"early\") or the gradient mapping of Table 1's baseline (\"tol\")"})
        iteration_bound: bool = field(default=True, metadata={
            "doc": "report Theorem 2.4's bounds (when the problem's constants are cached)"})
        constraints: ClassVar[dict] = {"stop": [Options("early", "tol")], "iteration_bound": [Boolean()]}

    def setup(self):
        super().setup()
        self.rule = MomentumRule(bk=self.bk)   # Beck–Teboulle's θ-sequence, no restart: θ and β are Python numbers

    def init(self, rng, warm_start, budget):
        x = self.start(warm_start)
        return ESPState(k=0, x=x, x0=x.blocks, y=x, momentum=Momentum())

    def descent(self, y: Point):
        """``−∇f(y) = 𝒜ᵀ(b − 𝒜y)``, from the carried ``𝒜y``."""
        return self.op.adjoint(self.op.b - y.images[0])

    def prox(self, u):
        """``proj_𝒞`` blockwise (Beck 2017, Example 6.37) and the image ``𝒜x`` of the projected point."""
        return self.point(*self.project(*u)), None

    def step(self, st):
        x, y, momentum, _ = fista_step(st.x, st.y, st.momentum, descent=self.descent, prox=self.prox, L=self.L,
                                       rule=self.rule)
        return ESPState(k=st.k + 1, x=x, x0=st.x0, grad_map=self.step_norm(st.y, x), y=y, momentum=momentum)

    def stop(self, st, budget):
        if budget.tol <= 0:   # tol=0: the whole budget, whatever test (28) says
            return None
        if self.config.stop == "early":
            branch, v = self.certified_separator(st)
            return "optimal" if branch else self.infeasible(st, budget.tol, v)
        if self.bk.float(st.grad_map) > budget.tol:
            return None
        branch, v = self.certified_separator(st)
        if not branch:
            return self.infeasible(st, budget.tol) or "optimal_inaccurate"
        f = self.op.objective(st.xc, st.xd)
        lb = self.op.lower_bound(v)
        return "optimal" if lb > 0 and f - lb <= budget.tol * lb else "optimal_inaccurate"


class ESPPdhg(_ESPPlan):
    """PDHG (29) for ``min{0 : 𝒜x = b, x ∈ 𝒞}`` with primal step ``σ = sigma_scale/||𝒜||²`` and dual step 1::

        x_{k+1} = proj_𝒞(x_k − σ 𝒜ᵀy_k),     y_{k+1} = y_k + 𝒜(2x_{k+1} − x_k) − b

    The D-part of the infimal displacement vector equals FISTA's limiting residual ``v_D`` (Theorem 2.1).
    **Sign typo resolved**: Appendix A writes ``(x_{k+1}, y_{k+1}) − (x_k, y_k) → (v_R, v_D)``; since ``v`` lies in
    ``Range(Id − T)`` it is ``y_k − y_{k+1} → v_D``. Test (28) is applied to that displacement and to
    ``b − 𝒜x_{k+1}`` (also ``→ v_D``); the first that certifies a separator stops the run (``stop="early"`` only).
    """

    name = "pdhg"

    @dataclass(frozen=True)
    class Config:
        stop: str = field(default="early", metadata={"doc": "test (28) on the displacement or the residual"})
        sigma_scale: float = field(default=0.95, metadata={"doc": "σ·||𝒜||² (PDHG needs σ < 1/||𝒜||²)"})
        iteration_bound: bool = field(default=False, metadata={
            "doc": "Theorem 2.4's bounds (proved for FISTA, reported for comparison)"})
        constraints: ClassVar[dict] = {"stop": [Options("early")],
                                       "sigma_scale": [Interval(float, 0, 1, closed="neither")],
                                       "iteration_bound": [Boolean()]}

    def setup(self):
        super().setup()
        self.sigma = float(self.sigma_scale) / self.L

    def init(self, rng, warm_start, budget):
        x = self.start(warm_start)
        zero = self.bk.zeros_d(self.op.d + 2)
        return ESPState(k=0, x=x, x0=x.blocks, dual=zero, disp=zero)

    def step(self, st):
        op = self.op
        gc, gd = op.adjoint(st.dual)
        x = self.point(*self.project(st.xc - self.sigma * gc, st.xd - self.sigma * gd))
        disp = op.b - (2.0 * x.images[0] - st.Ax)             # y_k − y_{k+1}
        return ESPState(k=st.k + 1, x=x, x0=st.x0, grad_map=self.step_norm(st.x, x), dual=st.dual - disp, disp=disp)

    def certified_separator(self, st):
        if st.k > 0:
            branch = self.op.test28(st.disp)[0]
            if branch:
                return branch, st.disp
        return super().certified_separator(st)

    def stop(self, st, budget):
        if budget.tol <= 0:   # tol=0: the whole budget, whatever test (28) says
            return None
        branch, v = self.certified_separator(st)   # v: the residual b − 𝒜x_k when no separator was found
        return "optimal" if branch else self.infeasible(st, budget.tol, v)
