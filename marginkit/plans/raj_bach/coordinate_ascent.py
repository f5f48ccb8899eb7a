"""Minimum-Bregman feasibility by randomized dual coordinate ascent (Raj & Bach, AISTATS 2021).

Reference: A. Raj, F. Bach, *Explicit regularization of stochastic gradient methods through duality* (AISTATS 2021)
[RB]: §2 (Algorithms 1 and 2, Lemma 1, eqs. (5) and (8)), §2.5 (mirror descent, eq. (10)), §3 (ℓp perceptrons)
and App. A–B. The problem (RB eq. 2) is ``min D_ψ(θ, θ0)`` with ``ψ = ½||·||_p²`` (1 < p <= 2) subject to
``a_iᵀθ ∈ Y_i``; it covers :class:`~marginkit.MinNormFeasibility` (rows ``a_i = y_i x_i``, ``Y_i = [1, ∞)``, or
``a_i = x_i``, ``Y_i = {y_i}``) and :class:`~marginkit.ProjectionOntoIntersection` (``a_i = I``, ``Y_i = K_i``).

**Dual, in the λ-scaling** (``λ = −α/n`` of RB's main text; RB's step ``n/L_i`` of Lemma 1 is
``1/L_i`` here, and RB's App. B uses this scaling):
``D(λ) = −Σ_i σ_{Y_i}(−λ_i) − ψ*(u) + ψ*(u0)``, ``u = u0 + Σ_i a_i λ_i``, ``u0 = ∇ψ(θ0)``, ``θ(λ) = ∇ψ*(u)``,
with ``ψ*(u) = ½||u||_q²`` and coordinate constants ``L_i = ||a_i||_q² / (p − 1)`` (RB Lemma 1). Every plan
here keeps ``u`` (the mirror point, O(d)) and ``λ`` (or the accelerated sequences) and never forms ``X``'s
Gram matrix.

**One iteration of the run loop is one epoch** of ``n`` coordinate updates with indices drawn uniformly (with
replacement) by the run's NumPy generator, over the constraint-system protocol of :mod:`.constraints`, compiled
(:mod:`.epochs_numba`, rows only) or in NumPy (:mod:`.epochs`) as the option ``compiled`` says, with the same index
sequence and the same arithmetic up to the order of the sums.

**Certificate** (``Result.certificate``), at the dual point ``λ`` whose primal image ``θ(λ)`` is returned (each
entry in full: :meth:`DualCoordinatePlan.stop`): ``dual = D(λ)`` (λ repaired into the dual domain); ``primal``, the
objective at a feasible point (margins: ``θ(λ)/min_i a_iᵀθ(λ)`` when ``θ(λ)`` separates, so ``duality_gap >=
D_ψ(θ*, θ(λ))``, RB Prop. 1) or at ``θ(λ)`` itself; ``max_violation`` of ``θ(λ)``; ``distance_lower_bound =
(−Σσ_{Y_i}(−λ_i) − ⟨Σ a_iλ_i, θ0⟩) / ||Σ a_iλ_i||_q``, which grows without bound when the constraints are
infeasible (RB Conclusion (2)). ``optimal`` when ``max_violation <= tol·violation_scale`` and the certified relative
gap ``|duality_gap|/dual <= tol`` with ``dual > 0``; ``infeasible`` on a Farkas certificate or a rounding-level
proof, ``infeasible_inaccurate`` when ``distance_lower_bound`` is too large without one. The full certificate costs
one product with X; ``stop`` computes it only when it can decide.

When the problem's CVXPY reference is already cached (``problem.reference()``), ``solution`` adds
``reference_gap = ψ(θ*) − D(λ)`` and ``bregman_to_reference = D_ψ(θ*, θ(λ))`` (RB Prop. 1: the latter is at
most the former).

**Gap-safe screening** (option ``screening`` of ``dykstra`` and ``dykstra-accelerated``, margins only): the
rule, its proof and what is resolved in it are in :mod:`.constraint_screening`.

The reduction ``MaxMargin(bias=False, kernel=None) -> MinNormFeasibility(p=2, "margin")``
(:mod:`marginkit.engine.reductions`) lists these methods on ``MaxMargin`` (the solution ``w`` is the same vector).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from ...core.mirror import bregman_lp, conjugate_exponent, grad_conjugate, grad_half_sq_norm, lp_norm
from ...core.params import Boolean, Options
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import parse_warm_start
from ...engine.runloop import IterationPlan, memoized, on_geometric_schedule
from ...core.hull import MAX_ENTRIES as HULL_MAX_ENTRIES, PROOF_TOL as HULL_TOL, exact_proof
from ..common.margin import data_cached
from ..common.numba_rows import COMPILED, compiled_info, resolve_compiled
from .constraint_screening import AcceleratedScreening, ConstraintScreening
from .constraints import RowConstraints, SetConstraints, compiled_kernels
from .cost import epoch_cost_ratio
from .epochs import RCD

__all__ = ["AcceleratedDykstra", "DualCoordinatePlan", "RandomizedDykstra", "bregman",
           "compiled_kernels", "epoch_cost_ratio"]

_SETS_NOT_COMPILED = "is only available for row constraints (MinNormFeasibility); set projections run in NumPy"


@dataclass
class DualState:
    t: int                 # coordinate steps done (epochs × n without screening)
    lam: np.ndarray        # λ (Alg. 1, SMD, perceptron) or α (Alg. 2)
    u: np.ndarray          # u0 + Σ a_i λ_i, so θ(λ) = ∇ψ*(u)
    rng: object = None     # the run's random generator (draws each epoch's indices)
    residual: float = np.inf      # largest coordinate residual |Δλ_i|/step_i of the epoch that made this state
    epochs: int = 0        # epochs run
    live: np.ndarray = None       # the constraints the epochs draw from, sorted (None: all of them)
    pending: np.ndarray = None    # screened at this state's check; λ_i = 0 and out of ``live`` from the next step on
    screened: int = 0      # constraints screened so far (pending ones included)
    cert: dict = None      # this state's full certificate, when its step computed it (a screening check)


@dataclass
class AcceleratedState(DualState):
    e_hat: np.ndarray = None   # ê with z = α + π ê and v = α + π/(1−γ) ê
    u_e: np.ndarray = None     # Σ a_i ê_i
    gamma: float = 0.0         # γ_t of Alg. 2
    pi: float = 1.0            # π_t = Π_{s<=t} (1 − γ_s), folded into ê at each epoch start


class DualCoordinatePlan(ConstraintScreening, IterationPlan):
    """Shared setup, state, certificate, stop rule and solution of the RB plans (see the module docstring).
    A subclass declares ``Config`` (with ``compiled``) and implements :meth:`epoch`.

    On a row-chunked dask ``X`` the engine runs the CoCoA+ margin form of :mod:`.cocoa_margin` instead (the registry
    card's variant for dask data)."""

    default_max_iter = 1000
    default_tol = 1e-6
    log_columns = ("objective", "dual_objective", "duality_gap", "max_violation")

    def setup(self):
        form = self.form
        self.p = float(form.p)
        self.q = conjugate_exponent(self.p)
        if form.form == "MinNormFeasibility":
            self.x0 = np.zeros(form.d) if form.w0 is None else np.asarray(form.w0, float)
            self.system = RowConstraints(form, self.x0, self.q)
        else:
            self.x0 = np.asarray(form.point, float)
            self.system = SetConstraints(form, self.x0, self.q)
        self.u0 = grad_half_sq_norm(self.x0, self.p)
        self.psi_star_u0 = 0.5 * lp_norm(self.u0, self.q) ** 2
        unsupported = None if isinstance(self.system, RowConstraints) else _SETS_NOT_COMPILED
        self.resolved_backend = resolve_compiled(self.config.compiled, self.method, unsupported)  # "numba" | "numpy"
        L = self.system.L
        self.Linv = np.where(L > 0, 1.0 / np.where(L > 0, L, 1.0), 0.0)
        self.L_max = float(L.max())
        self.inv_L_max = 1.0 / self.L_max if self.L_max > 0 else 0.0   # all-zero data: no step to take
        # gap-safe screening (module docstring): proven for margins only, in the plans that declare the option
        self.use_screening = bool(getattr(self.config, "screening", False)) and \
            isinstance(self.system, RowConstraints) and self.system.margin
        if self.use_screening:
            self.norms_q = np.sqrt(L * (self.p - 1.0))   # ||a_i||_q (L_i = ||a_i||_q²/(p − 1), RB Lemma 1)

    # hooks ---------------------------------------------------------------------------------------
    def start_lambda(self, warm_start):
        shape = self.system.lam_shape
        if warm_start is None:
            return np.zeros(shape)
        lam = warm_start.dual.get("lambda") if hasattr(warm_start, "dual") else warm_start
        if lam is None:
            raise ProblemError(f"warm_start for {self.name!r} must be a Result with a dual 'lambda' (from "
                               "'dykstra', 'dykstra-accelerated', 'mirror-descent' or 'cvxpy') or an array of shape "
                               f"{shape}")
        if np.shape(lam) != shape:
            raise ProblemError(f"warm_start dual 'lambda' must be a finite array of shape {shape}; got {np.shape(lam)}")
        lam = parse_warm_start(lam, int(np.prod(shape)), name="warm_start dual 'lambda'").reshape(shape)
        self.system.check_dual(lam, "warm_start dual 'lambda'")
        return lam

    def init(self, rng, warm_start, budget=None):
        """λ from the warm start (zero by default) and ``u = u0 + Σ a_iλ_i``; no constant depends on the budget.
        With screening, the initial state is checked (the stop rule computes its certificate anyway)."""
        lam = self.start_lambda(warm_start)
        u = self.u0 + self.system.rmatvec(lam)
        state = self.initial_state(lam, u, rng)
        if self.use_screening:
            self.screen(state)
        return state

    def initial_state(self, lam, u, rng):
        return DualState(t=0, lam=lam, u=u, rng=rng)

    def step(self, state):
        """One epoch: ``n`` coordinate updates with indices drawn uniformly by the run's generator; after gap-safe
        screening, as many as there are live constraints, drawn uniformly among them (module docstring). At the
        epochs of the geometric schedule a plan with screening checks the new state (:meth:`screen`)."""
        if state.pending is None and state.live is None:   # nothing screened: the draw of a plan without screening
            n = self.system.n
            nxt = self.epoch(state, state.rng.integers(0, n, size=n))
        else:
            state = self.apply_screen(state) if state.pending is not None else state
            m = len(state.live)
            nxt = self.epoch(state, state.live[state.rng.integers(0, m, size=m)] if m else state.live)
        if self.use_screening and on_geometric_schedule(nxt.epochs):
            self.screen(nxt)
        return nxt

    def epoch(self, state, idx):
        """The state after the coordinate updates ``idx`` (in this order) from ``state``."""
        raise NotImplementedError

    def advanced(self, state, **changes):
        """The state an epoch made from ``state``: ``changes`` (the new iterate) and one more epoch; what
        screening decided is kept, its check and certificate are the old state's own."""
        return replace(state, epochs=state.epochs + 1, pending=None, cert=None, **changes)

    def dual_point(self, state):
        """``(λ, u0 + Σ a_iλ_i)``: the dual point whose primal image ``θ(λ)`` is returned."""
        return state.lam, state.u

    def primal_point(self, state):
        return grad_conjugate(self.dual_point(state)[1], self.p)

    def objective(self, theta) -> float:
        return self.form.objective(theta)

    def dual_value(self, lam, u) -> float:
        """``D(λ) = −Σσ_{Y_i}(−λ_i) − ½||u||_q² + ½||u0||_q²`` for λ in the dual domain."""
        return self.system.linear_part(lam) - 0.5 * lp_norm(u, self.q) ** 2 + self.psi_star_u0

    def dual_certificate(self, state, memo=None) -> dict:
        """The dual half of the certificate, O(n + d) (no product with X): ``u``, the repaired ``λ``, ``D(λ)``
        and ``distance_lower_bound`` (computed once per state in a run: the loop's ``memo``)."""
        return memoized(memo, "dual_certificate", lambda: self._dual_certificate(state))

    def _dual_certificate(self, state) -> dict:
        lam, u = self.dual_point(state)
        lam_f, u_f = self.system.repair(lam, u)
        dual = self.dual_value(lam_f, u_f)
        norm_Alam = lp_norm(u_f - self.u0, self.q)
        num = self.system.farkas_numerator(lam_f, self.x0)
        dlb = max(num, 0.0) / norm_Alam if norm_Alam > 0 else (np.inf if num > 0 else 0.0)
        # ||u' − u||_q: how far the repair moved the dual point (θ is evaluated at u, the dual at u')
        shift = 0.0 if u_f is u else lp_norm(u_f - u, self.q)
        return {"u": u, "lam": lam_f, "dual": dual, "distance_lower_bound": dlb, "shift": shift}

    def certificate(self, state, memo=None) -> dict:
        """The full certificate (one product with X), computed once per state in a run (the loop's ``memo``):
        the trace and the stop test read the same one."""
        return memoized(memo, "certificate", lambda: self._certificate(state, memo))

    def _certificate(self, state, memo) -> dict:
        if state.cert is not None:   # computed by the step that made the state (a screening check)
            return state.cert
        dc = self.dual_certificate(state, memo)
        return self._full_certificate(dc, grad_conjugate(dc["u"], self.p))

    def _full_certificate(self, dc, theta, margins=None) -> dict:
        cert = self.system.evaluate(theta, self.objective, margins)  # the one product with X (unless given)
        cert.update(theta=theta, lam=dc["lam"], dual=dc["dual"], duality_gap=cert["primal"] - dc["dual"],
                    distance_lower_bound=dc["distance_lower_bound"])
        return cert

    def measure(self, state, memo=None) -> dict:
        c = self.certificate(state, memo)
        out = {"objective": self.objective(c["theta"]), "dual_objective": c["dual"], "duality_gap": c["duality_gap"],
               "max_violation": c["max_violation"]}
        if "margin" in c:
            out.update(margin=c["margin"], mistakes=c["mistakes"])
        if self.use_screening:
            out["screened"] = float(state.screened)
        return out

    def stop(self, state, budget, memo=None):
        """The statuses, from the full certificate only.

        The certificate (what ``stop`` uses, reported in ``Result.certificate``), at the dual point ``λ`` whose
        primal image ``θ(λ)`` is returned:

        * ``dual`` = ``D(λ)`` (λ first moved exactly into the dual domain, e.g. ``max(λ, 0)``: a rounding repair),
        * ``primal`` = the objective at a feasible point when one is at hand: for margins ``θ(λ)/min_i a_iᵀθ(λ)``
          when ``θ(λ)`` separates, so ``duality_gap = primal − dual >= ψ(θ*) − D(λ) >= D_ψ(θ*, θ(λ))`` (RB Prop. 1);
          for interpolation and sets no feasible point is computed and ``primal`` is the objective at ``θ(λ)``
          itself (the ε-feasible, ε-optimal certificate that interior-point solvers and the CVXPY reference use),
        * ``max_violation`` of ``θ(λ)``;
        * ``distance_lower_bound`` = ``(−Σσ_{Y_i}(−λ_i) − ⟨Σ a_iλ_i, θ0⟩) / ||Σ a_iλ_i||_q``, a certified lower bound
          on ``||θ − θ0||_p`` over the feasible set (weak alternative: for feasible θ,
          ``−σ_{Y_i}(−λ_i) <= λ_iᵀa_iᵀθ``). When the constraints are infeasible the dual is unbounded, λ diverges and
          this ratio grows without bound (RB Conclusion (2)).

        ``optimal`` is reported when ``max_violation <= tol·violation_scale`` (1 for margins, ``|y|_∞`` for
        interpolation, ``|point|_∞`` for sets: the data's own scale) and the certified relative gap
        ``|duality_gap|/dual <= tol`` with ``dual > 0`` (a certified lower bound on the optimal value; the gap at an
        infeasible θ can be negative); ``certificate["relative_gap"]`` is that number; ``infeasible`` when a zero
        row carries a constraint no θ can meet (a Farkas certificate ``e_i``), or when ``distance_lower_bound``
        exceeds ``1/tol`` times the distance from ``θ0`` to the farthest single constraint set (the constraints are
        then inconsistent to relative tolerance ``tol``; for margins this is "not separable to tolerance tol", as
        for :class:`~marginkit.plans.common.margin.MarginPlan`) while ``θ(λ)`` does not separate *and* a
        rounding-level proof is found (:meth:`infeasibility_proof`: an exact hull point for margins, a
        least-squares Farkas vector for interpolation, Farkas multipliers ``Σμ_i = 0``, ``−Σσ_{K_i}(−μ_i) > 0`` for
        sets); without the proof that case is ``infeasible_inaccurate``.

        The full certificate costs one product with X (a fraction of an epoch, which reads every row twice:
        benchmarks/README.md, "The certificate of the Raj–Bach epochs"), so it is computed only when it can decide: its
        dual half is O(n + d) and computed at every call, enough for the infeasibility test's trigger; the statuses are
        still decided by the full certificate, by the rules above, an epoch costs its own mat-vecs only, and the stop
        may come a few epochs later than the first epoch the certificate would have accepted. ``infeasible`` needs
        ``distance_lower_bound``, which is O(n + d) and checked at every call; ``optimal`` is tested at the epochs of
        the geometric schedule (every epoch up to 10, then about 60 per decade: the epochs the default trace records, so
        that run computes nothing more for it), and in between when the epoch's largest coordinate residual (returned by
        the epoch, free) has fallen below ``check_below``, or at epoch ``check_at``. After a check that does not certify
        ``tol``, ``check_below`` becomes the residual times the fraction of the violation/gap still to remove (between
        1/4 and 3/4), and ``check_at`` lies max(4, epochs/8) epochs ahead (a safeguard in case the residual stalls). A
        residual of exactly 0 (no coordinate moved) is not checked again before ``check_at``. The schedule is the stop
        rule's own memory (``memo.rule``, kept by the run loop), never the state's, and it does not depend on what the
        trace records."""
        if len(self.system.farkas_rows):
            return "infeasible"
        rule = memo.rule if memo is not None else {}
        scale = self.system.distance_scale
        epoch = state.epochs
        full = on_geometric_schedule(epoch)
        if budget.tol > 0 and scale > 0 and \
                self.dual_certificate(state, memo)["distance_lower_bound"] * budget.tol >= scale:
            c = self.certificate(state, memo)
            if not c.get("separates", False):
                # inconsistent to relative tolerance tol; ``infeasible`` only with a rounding-level proof
                return "infeasible" if self.infeasibility_proof(state) is not None else "infeasible_inaccurate"
            full = True
        if not full and state.residual >= rule.get("check_below", np.inf) and epoch < rule.get("check_at", 0):
            return None
        c = self.certificate(state, memo)
        vtol = budget.tol * self.system.violation_scale
        bounded = c["dual"] > 0 and np.isfinite(c["dual"])   # a positive certified lower bound on the optimum
        gtol = budget.tol * c["dual"] if bounded else 0.0
        if bounded and c["max_violation"] <= vtol and abs(c["duality_gap"]) <= gtol:
            return "optimal"
        # not yet: schedule the next check (this state is the one the next epoch starts from)
        need = min(vtol / c["max_violation"] if c["max_violation"] > vtol else 1.0,
                   gtol / abs(c["duality_gap"]) if abs(c["duality_gap"]) > gtol else (1.0 if bounded else 0.0))
        if not np.isfinite(need):
            need = 0.0
        rule["check_below"] = state.residual * min(0.75, max(0.25, need))
        rule["check_at"] = epoch + max(4, epoch // 8)
        return None

    def infeasibility_proof(self, state):
        """A rounding-level proof that no θ meets the constraints, or ``None``: for margins an exact hull point
        ``q`` (``Σq = 1``, ``||Σ q_i y_i x_i|| <= 1e-12·√n·Σ q_i ||x_i||``, Gordan: :mod:`marginkit.core.hull`); for
        interpolation the least-squares
        residual ``r = y − X X⁺y`` (``Xᵀr = 0`` to rounding while ``yᵀr = ||r||² > 0``, Farkas); dense data of
        moderate size only, computed once per problem (it depends on the data only). For sets, the Farkas
        certificate of :meth:`~.constraints.SetConstraints.farkas_certificate` from the run's dual point."""
        if isinstance(self.system, SetConstraints):
            return self.system.farkas_certificate(self.dual_certificate(state)["lam"])
        return data_cached(self.form, "infeasibility_proof", self._infeasibility_proof)

    def _infeasibility_proof(self):
        sys_ = self.system
        X = sys_.X
        if not isinstance(X, np.ndarray) or X.size > HULL_MAX_ENTRIES:
            return None
        n = X.shape[0]
        if sys_.margin:
            cert = exact_proof(X, sys_.s, False)
            if cert is None:
                return None
            return {"hull_weights": cert[0], "hull_distance": cert[1]}
        y = sys_.c
        try:
            r = y - X @ np.linalg.lstsq(X, y, rcond=None)[0]
        except np.linalg.LinAlgError:
            return None
        nr, ny = float(np.linalg.norm(r)), float(np.linalg.norm(y))
        if not (nr > 1e-10 * ny and float(np.linalg.norm(X.T @ r)) <= HULL_TOL * np.sqrt(max(n, 1))
                * float(np.linalg.norm(X)) * nr):
            return None
        return {"farkas_lambda": r / nr}

    def snapshot(self, state, memo=None):
        return self.certificate(state, memo)["theta"].copy()

    def solution(self, state, status, memo=None) -> Solution:
        c = self.certificate(state, memo)
        cert = {k: c[k] for k in ("primal", "dual", "duality_gap", "max_violation", "distance_lower_bound")}
        cert["violation_scale"] = self.system.violation_scale
        cert["relative_gap"] = relative_gap(cert["primal"], cert["dual"])
        if len(self.system.farkas_rows):
            i = int(self.system.farkas_rows[0])
            cert.update(primal=np.inf, duality_gap=np.nan, distance_lower_bound=np.inf,
                        farkas_lambda=np.eye(1, self.system.n, i).ravel())
        if status == "infeasible" and not len(self.system.farkas_rows):
            proof = self.infeasibility_proof(state)
            if proof:
                cert.update(proof)
        cert.update(reference_entries(self.form, c["dual"], c["theta"], self.p))
        if self.use_screening:
            cert["screened"] = {"removed": int(state.screened), "fixed": 0}
        info = {**compiled_info(self.resolved_backend), "coordinate_steps": state.t, "epochs": state.epochs}
        # return the point the certificate speaks of: for margins, θ(λ) rescaled onto the feasible set
        w = np.array(c.get("point", c["theta"]), dtype=float)
        return Solution(w=w, status=status, certificate=cert, dual={"lambda": np.array(c["lam"])}, info=info)


def relative_gap(primal: float, dual: float) -> float:
    """``|P − D|/D`` with the certified lower bound ``D > 0`` on the optimal value (``inf`` without one)."""
    if not (np.isfinite(primal) and np.isfinite(dual)) or dual <= 0:
        return np.inf
    return abs(primal - dual) / dual


def bregman(a, b, p) -> float:
    """``D_ψ(a, b)`` for ``ψ = ½||·||_p²`` (``½||a − b||²`` for p = 2, without cancellation)."""
    if p == 2.0:
        diff = np.asarray(a, float) - b
        return 0.5 * float(diff @ diff)
    return bregman_lp(np.asarray(a, float), np.asarray(b, float), p)


def reference_entries(form, dual: float, theta, p: float) -> dict:
    """``reference_gap`` (``ψ(θ*) − D``) and ``bregman_to_reference`` (``D_ψ(θ*, θ)``) against the problem's cached
    certified reference; none without one."""
    ref = form.cached_reference()
    if ref is None or ref.status not in ("optimal", "optimal_inaccurate") or ref.w is None:
        return {}
    return {"reference_gap": float(ref.value) - dual, "bregman_to_reference": bregman(ref.w, theta, p)}


class RandomizedDykstra(DualCoordinatePlan):
    """RB Algorithm 1 (Lemma 1), in λ-scaling: pick ``i`` uniformly, ``m = a_iᵀθ``,
    ``λ_i ← λ_i + (1/L_i)[Π_{Y_i}(m − L_iλ_i) − m]``, ``u ← u + a_i Δλ_i``, ``θ = ∇ψ*(u)``.

    Special cases: Hildreth's algorithm (margins, p = 2), randomized Kaczmarz (interpolation, p = 2, limit
    ``X⁺y``), and for sets with p = 2 exactly Dykstra's algorithm in random order (λ_i is minus Dykstra's
    increment). For p ≠ 2 it is a Bregman/Dykstra-type method; the name is kept for all p (only p = 2 with
    ``a_i = I`` is literally Dykstra's algorithm).
    ``step="per-sample"`` uses ``1/L_i`` (Lemma 1), ``"max"`` uses ``1/L_max`` ("L_i can simply be replaced by
    max_i L_i"). Cost per coordinate: O(nnz(x_i)) for p = 2, O(d) for p ≠ 2 (``∇ψ*`` couples every
    coordinate through ``||u||_q``).
    """

    name = "dykstra"

    @dataclass(frozen=True)
    class Config:
        step: str = field(default="per-sample", metadata={"doc": 'the step 1/L_i of Lemma 1, or 1/L_max ("max")'})
        compiled: bool | str = field(default="auto", metadata={
            "doc": 'the epoch compiled by numba (True; "auto": when installed) or in NumPy'})
        screening: bool = field(default=True, metadata={
            "doc": "gap-safe screening of inactive margin constraints (module docstring)"})
        constraints: ClassVar[dict] = {"step": [Options("per-sample", "max")], "compiled": COMPILED,
                                       "screening": [Boolean()]}

    def setup(self):
        super().setup()
        per_sample = self.config.step == "per-sample"   # ``self.step`` is the hook
        self.step_sizes = self.Linv if per_sample else np.where(self.Linv > 0, self.inv_L_max, 0.0)

    def epoch(self, state, idx):
        lam, u = state.lam.copy(), state.u.copy()
        res = self.system.epoch(RCD, self.step_sizes, idx, lam, u, self.q, self.resolved_backend)
        return self.advanced(state, t=state.t + len(idx), lam=lam, u=u, residual=res)


class AcceleratedDykstra(AcceleratedScreening, DualCoordinatePlan):
    """RB Algorithm 2: accelerated proximal coordinate ascent on the dual (APCG, μ = 0), ``γ_0 = 1/n``::

        z_t = (1 − γ_t) v_t + γ_t α_t                         (gradient point, θ(z_t) = ∇ψ*(u0 + Σ a_i z_t,i))
        α_{t+1} = α_t except α_{t+1,i} = prox step from α_{t,i} with τ = 1/(n γ_t L_i), gradient at z_t
        v_{t+1} = z_t + n γ_t (α_{t+1} − α_t)
        γ_{t+1}² = (1 − γ_{t+1}) γ_t²

    **Output** (resolved): RB's pseudo-code returns ``θ(α_{T+1})``, but the APCG theorem bounds the ``v``
    sequence, and ``θ(α_t)`` is much worse late in the run; ``output="v"`` (default) returns
    ``θ(v_t)``, ``output="alpha"`` the paper's literal ``θ(α_t)``. The certificate is evaluated at the
    returned point.

    **Rate** (resolved): eq. (8) as printed has an inconsistent n-scaling and is stated for α; the APCG bound
    used here (and tested) is ``E[ψ(θ*) − D(v_t)] <= (2n/(2n+t))² [ψ(θ*) − D(α_0) + ½ Σ_i L_i (λ*_i − α_0,i)²]``.
    The paper's box is garbled in the text (its Algorithm 4, the update of ``Xᵀz_{t+1}``, is split across
    lines); the recursion above is APCG's (Lin, Lu & Xiao 2015, with μ = 0), which the box restates in RB's
    notation.

    **O(nnz(x_i)) per step for p = 2, O(d) for p ≠ 2** (our change of variables, in the spirit of Lin et al.
    §4): the dense update of ``z`` over all n coordinates is avoided by ``z = α + π ê``, ``v = α + π/(1−γ) ê`` with
    ``π_t = Π_{s=1}^t (1 − γ_s)`` and the one-coordinate update ``ê_i += (nγ_t − 1)Δ/π_t``; π is folded back into
    ``ê`` at every epoch start. ``γ_{t+1}`` is computed as ``2γ/(√(γ²+4) + γ)`` (the paper's
    ``½(√(γ⁴+4γ²) − γ²)`` without cancellation).
    """

    name = "dykstra-accelerated"

    @dataclass(frozen=True)
    class Config:
        output: str = field(default="v", metadata={
            "doc": "θ(v_t), the sequence the APCG theorem covers, or the paper's literal θ(α_t)"})
        compiled: bool | str = "auto"
        screening: bool = field(default=True, metadata={
            "doc": "gap-safe screening, applied by a restart on the live constraints"})
        constraints: ClassVar[dict] = {"output": [Options("v", "alpha")], "compiled": COMPILED,
                                       "screening": [Boolean()]}

    def initial_state(self, lam, u, rng):
        return AcceleratedState(t=0, lam=lam, u=u, rng=rng, e_hat=np.zeros_like(lam), u_e=np.zeros_like(u),
                                gamma=1.0 / self.system.n, pi=1.0)

    def epoch(self, state, idx):
        alpha, ua = state.lam.copy(), state.u.copy()
        ehat, ue = state.e_hat.copy(), state.u_e.copy()
        scal = np.array([state.gamma, state.pi])
        n = None if state.live is None else len(state.live)   # APCG's n: the coordinates drawn from
        res = self.system.apcg_epoch(self.Linv, idx, alpha, ehat, ua, ue, scal, self.q, self.resolved_backend, n)
        return self.advanced(state, t=state.t + len(idx), lam=alpha, u=ua, residual=res, e_hat=ehat, u_e=ue,
                             gamma=float(scal[0]), pi=float(scal[1]))

    def dual_point(self, state):
        if self.output == "alpha" or state.t == 0 or state.gamma >= 1.0:   # γ = 1: no step yet since a (re)start
            return state.lam, state.u
        w = state.pi / (1.0 - state.gamma)
        return state.lam + w * state.e_hat, state.u + w * state.u_e
