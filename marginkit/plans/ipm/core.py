"""Mehrotra's predictor–corrector on the SVM quadratic program, with its normal equations in the feature space.

Papers: M. C. Ferris & T. S. Munson, *Interior-point methods for massive support vector machines*, SIAM J. Optim.
13(3):783–804, 2003, §2 (the primal–dual system of the linear SVM) and §3 (its linear algebra: a system of the size
of the feature space); E. M. Gertz & S. J. Wright, *Object-oriented software for quadratic programming*, ACM TOMS
29(1):58–81, 2003 (the QP's Newton system, its reduction by elimination of the diagonal blocks, and Mehrotra's
predictor–corrector as OOQP implements it); S. Mehrotra, *On the implementation of a primal–dual interior
point method*, SIAM J. Optim. 2(4), 1992 (the centering rule σ = (μ_aff/μ)³).

**The problem.** With ``C_i = C·s_i`` (``problem.box``), on the samples with ``C_i > 0`` (the others carry no term)::

    min  ½||w||² + Σ C_i ξ_i    s.t.   y_i(x_iᵀw + b) + ξ_i − 1 = s_i,   s >= 0,   ξ >= 0,

(the hard margin of ``MaxMargin`` has no ``ξ``; without a bias ``b = 0``). Its multipliers are ``α`` (of the
margins) and ``η`` (of ``ξ >= 0``), and the optimality conditions are (Ferris & Munson §2)::

    r_w = w − Xᵀ(y∘α) = 0,   r_b = yᵀα = 0,   r_η = C − α − η = 0,   r_s = s − y∘(Xw + b) − ξ + 1 = 0,
    s∘α = μ1,   ξ∘η = μ1,   (s, α, ξ, η) >= 0,   μ → 0.

**The normal equations.** Eliminating ``ds``, ``dξ`` and ``dη`` from the Newton step (the derivation:
:meth:`InteriorPointPlan.direction`) leaves ``dα = D∘(g − y∘(X dw + db))`` with the diagonal
``D = (s/α + ξ/η)⁻¹`` (``D = α/s`` for the hard margin), and ``d + 1`` unknowns (``d`` without a bias)::

    [ I + XᵀDX   XᵀD1 ] [dw]   [ −r_w + Xᵀ(y∘D∘g) ]
    [ 1ᵀDX       1ᵀD1 ] [db] = [  r_b + yᵀ(D∘g)   ]

symmetric positive definite for ``D > 0`` (it is ``[X 1]ᵀD[X 1] + diag(I, 0)``; Ferris & Munson §3 solve the same
system through Sherman–Morrison–Woodbury; OOQP reduces its Newton systems by the same elimination). It is formed and
factored once per iteration (:mod:`.normal`) and solved twice, for the predictor and the corrector.

**Mehrotra's rule** (Mehrotra 1992, as in OOQP): the affine direction (``σ = 0``), its longest step ``τ_aff`` in
the positive orthant and ``μ_aff``; ``σ = (μ_aff/μ)³``; the corrected direction; the step ``τ = min(1, θ·τ_max)`` with
``θ = 0.995`` (one step length for primal and dual: the QP's ``w`` appears in both residuals). The linear residuals
shrink by ``1 − τ`` each iteration, so they vanish after a full step.

**Resolved here** (in full: :meth:`InteriorPointPlan.start`, :meth:`InteriorPointPlan.mehrotra`): the starting point
is mapped onto itself by ``X → cX``, ``C → C/c²`` (the iterates, the iteration count and the certified gaps do not
depend on the scale of the data); a step that cannot be taken leaves the state ``stalled``, which ends as
``optimal_inaccurate`` unless it proves ``tol`` (with ``tol=0`` it is kept until ``max_iter``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from ...core.backend import NUMPY
from ...core.blas import one_numpy_pool
from ...core.params import Interval
from ...core.validation import ProblemError
from ...core.warmstart import parse_warm_start
from ...engine.runloop import IterationPlan
from .normal import Breakdown, NormalEquations

STEP_FRACTION = 0.995   # θ: the fraction of the longest step to the boundary
MU_FLOOR = 1e-15        # μ/μ₀ below which no step is taken (module docstring)
MIN_STEP = 1e-12        # a step length below this makes no progress: the iteration has stalled
MAX_COLUMNS = 3000      # default: d above this is declined at compile time (the d × d matrix: 72 MB, d³/3 flops)


@dataclass
class IPMState:
    t: int
    w: np.ndarray               # the primal weights
    b: float                    # the primal offset (0 without a bias)
    alpha: np.ndarray           # multipliers of the margins, > 0 (the active samples, C_i > 0)
    s: np.ndarray               # margin slacks y_i(x_iᵀw + b) + ξ_i − 1 (as the iteration carries them), > 0
    xi: np.ndarray | None       # hinge slacks ξ (None: hard margin)
    eta: np.ndarray | None      # multipliers of ξ >= 0 (None: hard margin)
    mu: float                   # the complementarity (sᵀα + ξᵀη)/(2m) (sᵀα/m for the hard margin)
    mu0: float                  # μ at the start (the stall floor is relative to it)
    step: float = 0.0           # the last step length τ
    stalled: str = ""           # why no step could be taken (empty while the iteration progresses)
    cert: dict = None           # the certificate of this iterate (computed by the plan's ``certify`` in init/step)
    xw: object = None           # X_a w (n-side): the certificate's product, reused by the next step


class InteriorPointPlan(IterationPlan):
    """One iteration = one Mehrotra predictor–corrector step on the SVM QP (module docstring). A subclass gives the
    box (``C_i``, or None for the hard margin), its certificate (:meth:`certify`, stored in the state) and the stop
    rule on it. Option ``max_columns``: the largest ``d`` (with a bias ``d + 1``) accepted; above it compile declines
    with a ``ProblemError`` naming the methods that need no ``d × d`` matrix.

    Written once over the problem's backend (:mod:`marginkit.core.backend`): the length-n vectors (``α``, ``s``,
    ``ξ``, ``η``, ``D``) live where ``X`` lives (``bk.xp``: NumPy, an array-API namespace on ``X``'s device, dask
    chunked like ``X``), ``w`` on the d-side (``bk.xd``); the products are the backend's ``matvec``, ``rmatvec`` and
    ``weighted_gram``; the ``d × d`` normal matrix and its Cholesky factor are on the host (:mod:`.normal`), and so
    are the scalars of Mehrotra's rule (the step lengths, ``μ``, ``σ``)."""

    name = "ipm"
    default_max_iter = 100
    default_tol = 1e-6
    alternatives = "'dual-cd' / 'dual-cd-bias' or 'fista'"

    @dataclass(frozen=True)
    class Config:
        max_columns: int = field(default=MAX_COLUMNS, metadata={"doc": "the largest d the normal matrix is formed for"})
        constraints: ClassVar[dict] = {"max_columns": [Interval(int, 1, None)]}

    def box_of(self, form):
        """``C_i`` per sample (a NumPy array), or None for the hard margin."""
        raise NotImplementedError

    def box_n_of(self, form):
        """``C_i`` per sample where ``X`` lives (the backend's n-side), or None for the hard margin."""
        raise NotImplementedError

    @property
    def xp(self):
        """The namespace of the data (the backend's; a module is not kept on the plan, which pickles)."""
        return self.bk.xp

    def setup(self):
        form = self.form
        if getattr(form, "kernel", None) is not None:
            raise ProblemError(f"{self.method}: the interior-point method works on the primal w: linear problems "
                               "only (no kernel)")
        X = form.X
        self.n, self.d = X.shape
        self.bias = bool(getattr(form, "bias", False))
        size = self.d + int(self.bias)
        if size > self.config.max_columns:
            raise ProblemError(
                f"{self.method}: X has d = {self.d} columns; the interior-point method forms and factors a "
                f"{size} × {size} normal matrix ({8 * size * size / 2 ** 20:.0f} MiB, about {size ** 3 / 3:.2g} flops "
                f"per iteration), declined above max_columns = {self.config.max_columns}: use "
                f"{self.alternatives}, which never form it")
        self.bk = bk = getattr(form, "backend", NUMPY)
        box = self.box_of(form)
        keep = np.flatnonzero(box > 0) if box is not None else np.arange(self.n)
        self.keep = keep
        self.all_kept = keep.shape[0] == self.n

        def rows(a):   # the rows the iteration runs on (C_i > 0), where they live
            return a if self.all_kept else bk.take_rows(a, keep)
        self.X = X                                           # every row (float64, dense or CSR on NumPy)
        self.Xa = rows(X)
        self.y = form.y
        self.ya = rows(self.y)
        self.ya_host = bk.host(self.ya)                      # the labels of the host searches (the same array on NumPy)
        self.box = None if box is None else np.ascontiguousarray(box, dtype=np.float64)
        self.boxa_host = None if box is None else self.box[keep]
        self.boxa = None if box is None else rows(self.box_n_of(form))
        self.R = float(form.max_row_norm()) or 1.0

    def run_solution(self, **options):
        """The run, with NumPy's BLAS pool held to one thread on host data where SciPy's is another library
        (:mod:`marginkit.core.blas`: two spinning pools made every iteration 2-3 times slower)."""
        if self.bk is not NUMPY:
            return super().run_solution(**options)
        with one_numpy_pool():
            return super().run_solution(**options)

    # the iteration ---------------------------------------------------------------------------------------------
    def start(self):
        """``(α, s, ξ, η)`` of the scale-invariant starting point, where the data live.

        The starting point ``w = 0``, ``b = 0``, ``s = ξ = 1``, ``α = η = C_i/2`` (hard margin: ``α = 1/R²``,
        ``R = max||x_i||``) is mapped onto itself by ``X → cX``, ``C → C/c²`` (``w/c``, ``α/c²``, ``η/c²``): with that
        rule the iterates, the number of iterations and the certified relative gaps do not depend on the scale of the
        data."""
        xp, bk, ya = self.xp, self.bk, self.ya
        ones = bk.persist(xp.ones_like(ya))
        if self.boxa is None:
            return bk.persist(xp.full_like(ya, 1.0 / self.R ** 2)), ones, None, None
        half = bk.persist(0.5 * self.boxa)
        return half, ones, ones, half   # never written in place: the steps make new vectors

    def complementarity(self, alpha, s, xi, eta):
        """``μ`` as a lazy scalar of the backend (a float on NumPy and dask)."""
        bk = self.bk
        if xi is None:
            return bk.lazy(bk.vdot(s, alpha)) / alpha.shape[0]
        return bk.lazy(bk.vdot(s, alpha) + bk.vdot(xi, eta)) / (2 * alpha.shape[0])

    def init(self, rng, warm_start, budget=None):
        # a warm start is checked and not used: a point off the central path slows an interior-point method down
        # (Gondzio & Grothey, "Reoptimization with the primal-dual interior point method", SIAM J. Optim. 13(3));
        # the method starts from its own centred point
        parse_warm_start(warm_start, self.d)
        alpha, s, xi, eta = self.start()
        mu = self.bk.float(self.complementarity(alpha, s, xi, eta))
        st = IPMState(t=0, w=self.bk.zeros_d(self.d), b=0.0, alpha=alpha, s=s, xi=xi, eta=eta, mu=mu, mu0=mu)
        st.cert = self.certify(st, None)
        return st

    def scores_of(self, st):
        """``X_a w`` of the iterate ``st``: one product, kept in the state (the certificate and the next step share
        it, so an iteration costs one pass over ``X`` less)."""
        if st.xw is None:
            st.xw = self.bk.matvec(self.Xa, st.w)
        return st.xw

    def direction(self, normal, D, g, r_w, r_b, rho1, rho2, st, r_eta):
        """``(dw, db, dα, ds, dξ, dη)`` from the factored normal equations, (1)–(6) below.

        Linearising the optimality conditions (module docstring) with the complementarity targets
        ``s∘α + s∘dα + α∘ds = σμ1 − c₁`` and ``ξ∘η + ξ∘dη + η∘dξ = σμ1 − c₂`` (``c = 0`` for the predictor, the
        products ``ds∘dα``, ``dξ∘dη`` of the predictor for the corrector), and writing ``ρ₁ = σμ1 − c₁ − s∘α``,
        ``ρ₂ = σμ1 − c₂ − ξ∘η``::

            (1) dw − Xᵀ(y∘dα) = −r_w            (3) dη = r_η − dα              (5) ds = (ρ₁ − s∘dα)/α
            (2) yᵀdα = −r_b                      (4) ds − y∘(X dw + db) − dξ = −r_s
            (6) dξ = (ρ₂ − ξ∘dη)/η = (ρ₂ − ξ∘r_η + ξ∘dα)/η

        Putting (5), (6) into (4) gives ``dα`` in terms of ``(dw, db)`` with the diagonal ``D = (s/α + ξ/η)⁻¹``
        (``D = α/s`` for the hard margin)::

            dα = D∘(g − y∘(X dw + db)),    g = r_s + ρ₁/α − (ρ₂ − ξ∘r_η)/η,

        and then (1), (2), using ``y∘y = 1``, are the normal equations of the module docstring (``normal``), whose
        solution ``(dw, db)`` gives ``dα``, then ``ds`` by (5), ``dη`` by (3) and ``dξ`` by (6)."""
        ya, Xa, bk = self.ya, self.Xa, self.bk
        Dg = D * g
        rhs = bk.host(-r_w + bk.rmatvec(Xa, ya * Dg))
        dw, db = normal.solve(rhs, r_b + bk.float(bk.vdot(ya, Dg)))
        dw = bk.asarray_d(dw)
        dalpha = Dg - D * (ya * (bk.matvec(Xa, dw) + db))
        ds = (rho1 - st.s * dalpha) / st.alpha
        if st.xi is None:
            return dw, db, dalpha, ds, None, None
        deta = r_eta - dalpha
        dxi = (rho2 - st.xi * deta) / st.eta
        return dw, db, dalpha, ds, dxi, deta

    def max_step(self, st, dalpha, ds, dxi, deta) -> float:
        """The longest step ``τ <= 1`` that keeps ``(α, s, ξ, η) >= 0`` (one synchronisation of the backend)."""
        pairs = [(st.alpha, dalpha), (st.s, ds)] + ([] if st.xi is None else [(st.xi, dxi), (st.eta, deta)])
        return min(1.0, self.bk.step_to_boundary(*pairs))

    def step(self, st):
        nxt = replace(st, t=st.t + 1)
        if st.stalled:
            return nxt
        try:
            moved = self.mehrotra(st)
        except Breakdown as exc:
            moved = str(exc)
        if isinstance(moved, str):
            nxt.stalled = moved
            return nxt
        moved.t = st.t + 1
        moved.cert = self.certify(moved, st.cert)
        return moved

    def mehrotra(self, st):
        """The next state, or the reason no step is taken (a string).

        A step that cannot be taken (the normal matrix fails even regularised, a non-finite or vanishing step, or
        ``μ`` below ``1e-15`` of its start, :data:`MU_FLOOR`, where ``D`` reaches ``1e15`` and the matrix loses the
        identity to rounding) is not taken: :meth:`step` keeps the state and marks it ``stalled``; the plan then ends
        with ``optimal_inaccurate`` (its certified gap in the certificate) unless that state already proves ``tol``;
        with ``tol=0`` ("run the whole budget") the stalled state is kept until ``max_iter`` (``user_limit``)."""
        if st.mu <= MU_FLOOR * st.mu0:
            return f"the complementarity reached {MU_FLOOR:g} of its start (the limit of double precision)"
        ya, Xa, bk, xp = self.ya, self.Xa, self.bk, self.xp
        hard = st.xi is None
        f = self.scores_of(st) + st.b
        r_w = st.w - bk.rmatvec(Xa, ya * st.alpha)
        r_s = st.s - ya * f + 1.0 if hard else st.s - ya * f - st.xi + 1.0
        r_eta = None if hard else self.boxa - st.alpha - st.eta
        with np.errstate(all="ignore"):
            D = st.alpha / st.s if hard else 1.0 / (st.s / st.alpha + st.xi / st.eta)
        # yᵀα and whether D is finite, with one synchronisation
        r_b, finite = bk.floats(bk.vdot(ya, st.alpha) if self.bias else 0.0, bk.as_float(xp.all(xp.isfinite(D))))
        if not finite:
            return "the scaling D is not finite"
        normal = NormalEquations(bk, Xa, D, self.bias)

        def solve(rho1, rho2):
            g = r_s + rho1 / st.alpha if hard else r_s + rho1 / st.alpha - (rho2 - st.xi * r_eta) / st.eta
            return self.direction(normal, D, g, r_w, r_b, rho1, rho2, st, r_eta)

        sa = st.s * st.alpha
        xe = None if hard else st.xi * st.eta
        aff = solve(-sa, None if hard else -xe)
        tau = self.max_step(st, *aff[2:])
        mu_aff = bk.float(self.complementarity(st.alpha + tau * aff[2], st.s + tau * aff[3],
                                      None if hard else st.xi + tau * aff[4], None if hard else st.eta + tau * aff[5]))
        sigma = min(1.0, (mu_aff / st.mu) ** 3)
        target = sigma * st.mu
        rho1 = target - sa - aff[3] * aff[2]
        rho2 = None if hard else target - xe - aff[4] * aff[5]
        dw, db, dalpha, ds, dxi, deta = solve(rho1, rho2)
        tau = STEP_FRACTION * self.max_step(st, dalpha, ds, dxi, deta)
        tau = min(1.0, tau)
        if not np.isfinite(tau) or tau < MIN_STEP:
            return f"the step length fell to {tau:.3g}"
        alpha, s = st.alpha + tau * dalpha, st.s + tau * ds
        xi = None if hard else st.xi + tau * dxi
        eta = None if hard else st.eta + tau * deta
        if hard:
            alpha, s = bk.persist_all(alpha, s)
            sa, low_a, low_s = bk.floats(bk.vdot(s, alpha), xp.min(alpha), xp.min(s))
            lows, mu = (low_a, low_s), sa / alpha.shape[0]
        else:
            alpha, s, xi, eta = bk.persist_all(alpha, s, xi, eta)
            sa, xe, *lows = bk.floats(bk.vdot(s, alpha), bk.vdot(xi, eta), xp.min(alpha), xp.min(s), xp.min(xi),
                                      xp.min(eta))
            mu = (sa + xe) / (2 * alpha.shape[0])   # complementarity(), its two sums and the checks in one sync
        if not all(low > 0 for low in lows):
            return "the step left the positive orthant (rounding)"
        return IPMState(t=st.t, w=st.w + tau * dw, b=st.b + tau * db if self.bias else 0.0, alpha=alpha, s=s, xi=xi,
                        eta=eta, mu=mu, mu0=st.mu0, step=tau)

    # certificate (the subclasses) ---------------------------------------------------------------------------------
    def certify(self, st, previous: dict | None) -> dict:
        """The certificate of the iterate ``st`` (a dict under the certificate's key names), computed once, in
        ``init``/``step``, so ``measure``, ``stop`` and ``solution`` only read it; ``previous``: the certificate of
        the iterate before (None at the start), for a bound kept across iterations."""
        raise NotImplementedError

    def balanced(self, a: np.ndarray) -> np.ndarray:
        """``a`` (on the active samples) with ``yᵀa = 0``: the heavier class's multipliers scaled down, so every box
        ``[0, C_i]`` and ``a >= 0`` still hold (a copy)."""
        bk = self.bk
        pos = self.ya > 0
        sum_pos, sum_neg = bk.floats(bk.masked_sum(a, pos), bk.masked_sum(a, ~pos))
        if sum_pos > sum_neg and sum_pos > 0:
            return self.xp.where(pos, a * (sum_neg / sum_pos), a)
        if sum_neg > sum_pos and sum_neg > 0:
            return self.xp.where(pos, a, a * (sum_pos / sum_neg))
        return bk.copy(a)

    def scatter(self, a):
        """The multipliers ``a`` of the active samples as a length-n vector (zero where ``C_i = 0``), on the
        n-side."""
        if self.all_kept:
            return self.bk.copy(a)
        full = np.zeros(self.n)
        full[self.keep] = self.bk.host(a)
        return self.bk.asarray_n(full, like=self.y)

    def finite(self, st) -> bool:
        xp = self.xp
        return bool(np.isfinite(st.b)) and bool(self.bk.host(xp.all(xp.isfinite(st.w)) & xp.all(xp.isfinite(st.alpha))))

    def snapshot(self, st):
        return self.bk.copy(st.w)
