"""Reductions between problem forms, and the chain that applies them (CVXPY's ``reductions/chain.py`` idea).

A :class:`Reduction` maps a problem of form ``source`` to one of form ``target`` (``apply -> (problem,
inverse_data)``) and a solution of the target back (``invert``). A :class:`Chain` holds the reductions that led
from the user's problem to the form a method runs on: :meth:`Chain.apply` in order, :meth:`Chain.invert` in
reverse. The reductions are listed in :data:`marginkit.engine.registry.REDUCTIONS`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..formulations import MinNormFeasibility


class Reduction:
    """Map a problem of form ``source`` to one of form ``target`` and a solution back."""

    source: str = ""
    target: str = ""
    tags: tuple | None = None  # if set, only the target form's methods whose card carries one of these cross the edge

    def lets_through(self, card) -> bool:
        """Whether ``card``'s method (of the target form) solves the source form through this edge."""
        return self.tags is None or any(tag in card.tags for tag in self.tags)

    def accepts(self, problem) -> tuple[bool, str]:
        return True, ""

    def apply(self, problem):
        raise NotImplementedError

    def invert(self, solution, inverse_data):
        return solution

    def __repr__(self):
        return f"{type(self).__name__}({self.source} -> {self.target})"


@dataclass(frozen=True)
class Chain:
    """The reductions from a user's problem to the problem a method runs on, with their inverse data."""

    problem: object                     # the user's problem
    reduced: object                     # the problem in the method's form
    links: tuple = ()                   # ((reduction, inverse_data), ...) in order of application

    def extend(self, reduction: Reduction) -> "Chain":
        new, inverse = reduction.apply(self.reduced)
        return Chain(self.problem, new, self.links + ((reduction, inverse),))

    def allows(self, card) -> bool:
        """Whether every reduction of the chain lets ``card``'s method through."""
        return all(red.lets_through(card) for red, _ in self.links)

    def invert(self, solution):
        """Map a solution of ``reduced`` back to the user's problem (the links in reverse)."""
        for red, inverse in reversed(self.links):
            solution = red.invert(solution, inverse)
        return solution

    def __len__(self):
        return len(self.links)

    def __iter__(self):
        return iter(self.links)


class MaxMarginToMinNorm(Reduction):
    """``min ½||w||² s.t. y_i x_iᵀw >= 1`` is ``MinNormFeasibility(p=2, "margin")`` on the same data; the
    solution ``w`` is the same vector (invert is the identity)."""

    source, target = "MaxMargin", "MinNormFeasibility"
    # only the methods whose limit is the min-norm point cross this edge (the Dykstra cards): mirror-descent on the
    # squared hinge stops at some separator, not the max-margin one (the contract does not list it for MaxMargin)
    tags = ("dykstra",)
    # the reduced problem shares X and y where they live (no host copy): followed on dask data too
    keeps_data = ("dask",)

    def accepts(self, problem):
        if problem.bias:
            return False, "the min-norm feasibility form has no bias"
        if problem.kernel is not None:
            return False, "the min-norm feasibility form works on w, not with a kernel"
        return True, ""

    def apply(self, problem):
        key = ("reduction", self.target)
        if key not in problem._cache:  # built once per problem; shares the validated X (no copy)
            problem._cache[key] = MinNormFeasibility(problem.X, problem.y, p=2.0, constraint="margin")
        return problem._cache[key], None


class PerturbedPrimalToDual(Reduction):
    """Solve the perturbed primal (20) through its dual (15); ``(w, t)`` are shared, the certificate's sides swap."""

    source, target = "PerturbedSVMPrimal", "PerturbedSVMDual"

    def apply(self, problem):
        return problem.dual(), None

    def invert(self, solution, inverse_data):
        cert = solution.certificate
        if cert is not None and "primal" in cert:
            cert = {**cert, "primal": cert["dual"], "dual": cert["primal"]}
        return replace(solution, certificate=cert)
