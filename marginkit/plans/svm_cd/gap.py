"""What the SVM box-dual coordinate plans share (``dual-cd``, ``dual-cd-bias``, ``smo`` and ``dual-cd``'s CoCoA+ form
on dask): the duality-gap certificate, its stop rule, the pieces of their solutions and the options of the epochs.

Each state carries ``primal`` (``P(w)``, or ``P(w, b)`` at the best offset), ``dual`` (``D(a) > 0``, a certified lower
bound on the optimum), ``t`` and ``checked`` (the iteration at which the two were last computed, by ``certify``).
Weak duality ``D <= P* <= P`` makes ``(P − D)/D <= tol`` (with ``D > 0``) a proof of ``(P − P*)/P* <= tol``."""
from __future__ import annotations

from dataclasses import field

import numpy as np

from ...core.params import Boolean
from ...engine.runloop import IterationPlan
from ..common.numba_rows import COMPILED

# the declared constraints of the options every epoch plan of the family has (dual-cd, dual-cd-bias)
EPOCH_CONSTRAINTS = {"shrinking": [Boolean()], "compiled": COMPILED, "screening": [Boolean()], "polish": [Boolean()]}


def shrinking_option():
    """The ``Config`` field ``shrinking`` (Hsieh et al. 2008, §3.2)."""
    return field(default=True, metadata={"doc": "Hsieh et al. §3.2"})


def compiled_option():
    """The ``Config`` field ``compiled`` of the compiled epochs."""
    return field(default="auto",
                 metadata={"doc": 'the epochs compiled by numba (True; "auto": when installed) or in NumPy'})


def screening_option():
    """The ``Config`` field ``screening`` (gap-safe screening, Ndiaye et al. 2017)."""
    return field(default=True, metadata={"doc": "gap-safe screening at every certificate check (Ndiaye et al. 2017)"})


def polish_option():
    """The ``Config`` field ``polish`` (:mod:`.polish`)."""
    return field(default=True, metadata={"doc": "the restricted interior-point polish (.polish)"})


class DualityGapPlan(IterationPlan):
    """Base class: ``optimal`` iff the certified relative gap ``(P − D)/D <= tol`` at the current iterate. Every
    such plan has compiled epochs (option ``compiled``)."""

    default_max_iter = 1000
    default_tol = 1e-6
    log_columns = ("objective", "dual_objective", "duality_gap")

    def relative_gap(self, st) -> float:
        """``(P − D)/D`` with ``D > 0`` finite (``inf`` without such a bound)."""
        return (st.primal - st.dual) / st.dual if st.dual > 0 and np.isfinite(st.dual) else np.inf

    def polish_eta(self, st) -> float:
        """The coordinate work (model seconds, :mod:`.polish`) from ``st`` after which the restricted polish would
        have been tried and run, at the earliest; ``inf`` without a polish. ``solve("auto")``'s probe does not stop on
        its gap's rate while this fits in its budget (the rate of the epochs does not foresee the polish)."""
        polisher = getattr(self, "polisher", None)
        return np.inf if polisher is None else polisher.eta(st)

    def certified_now(self, st) -> bool:
        """Whether ``st.primal``/``st.dual`` belong to this iterate; a plan that certifies on demand overrides it."""
        return st.checked == st.t

    def stop(self, st, budget):
        if self.certified_now(st) and self.relative_gap(st) <= budget.tol:
            return "optimal"
        return None

    def snapshot(self, st):
        return st.w.copy()

    def ensure_certified(self, st) -> None:
        """Compute the certificate of this iterate (``certify``) if the state does not hold it yet."""
        if st.checked != st.t:
            self.certify(st)

    def gap_certificate(self, st, max_violation: float = 0.0) -> dict:
        """The certificate of a solution (computed for this iterate first if it is not yet)."""
        self.ensure_certified(st)
        return {"primal": st.primal, "dual": st.dual, "duality_gap": st.primal - st.dual,
                "relative_gap": self.relative_gap(st), "max_violation": max_violation}
