"""Hoffman constants of the margin problems, and the Łojasiewicz constant of Apidopoulos et al. built on one.

References: V. Apidopoulos, T. Poggio, L. Rosasco, S. Villa, *Iterative regularization in classification via hinge
loss diagonal descent* (arXiv 2212.12675v1, 2022) [AP]: §5, Lemma 5.4 with (5.2) and (5.3), and its proof in
App. A.2, (A.31)-(A.40); A. J. Hoffman (1952); J. Peña, J. C. Vera, L. F. Zuluaga, *New characterizations of
Hoffman constants for systems of linear constraints*, Math. Program. 187 (2021) [PVZ]; C. Zălinescu, SIAM J. Optim.
14 (2003) and Wang & Lin (2014), Lemma 15 (the formula printed as (5.3)). Rows ``z_i = y_i x_i``,
``Z = diag(y) X`` (n × d).

**1. The separability system** ``{w : Zw >= b}``, distances in ``||·||_2`` and residuals ``(b − Zw)_+`` in
``||·||_∞`` (the norm in which the margin is measured): its Hoffman constant -- the least ``H`` with
``dist(w, {Zw >= b}) <= H·||(b − Zw)_+||_∞`` for every ``w`` and every ``b`` for which the set is non-empty -- is
``||w*|| = 1/γ*`` when the data are strictly separable (``w*`` the hard-margin solution, ``Zw* >= 1``; the proof,
and PVZ's characterisation it agrees with: :func:`separability_hoffman`). For data that are not strictly separable
it is ``max_J ||w*(J)||`` over the strictly separable subsets ``J`` (enumerated for ``n <= SEPARABILITY_MAX_N``,
else ``None`` with the reason); with Euclidean residuals it would be smaller in general.

**2. The dual system of Apidopoulos et al.** (A.31): the minimisers of every ``D_t`` are
``{u : Eu = ē, −1/λ_t <= u <= 0}`` with ``E = [Zᵀ; 1ᵀ]`` ((d+1) × n). (5.3) gives its Hoffman constant as
``τ = sup{||(u, v)|| : ||Aᵀu + Eᵀv|| = 1, u >= 0, the rows of A, E at the non-zeros of (u, v) linearly independent}``
with ``A = [I; −I]``; it is ``τ = max_B ||B⁻¹||_2`` over the bases ``B = [e_I; E_K]`` of ``R^n`` [the "independent
subsets" of PVZ §4], found by enumerating the square blocks ``T = E[K, J]`` (``Σ_k C(d+1, k)·C(n, k)`` of them,
polynomial in ``n`` for fixed ``d``) up to ``max_bases`` (``exact: True``, with the witness ``(u, v)`` of (5.3)),
beyond it ``None`` with a certified **lower** bound from sampled bases (the derivation: :func:`dual_hoffman`).

**3. The Łojasiewicz constant** (Lemma 5.4, (5.2) as derived in (A.40)):
``μ = 1/(8τ²(9M + 6√(2M)·R·||Z|| + 2R²||Z||² + 2))`` with ``M = r_0 = D_0(u_0) − D∞(u*)`` and
``R = ||u_0|| + 2||u*||``; for the plans' start ``u_0 = 0``, ``M = ½||w*||²`` and ``R = 2||u*||`` with ``u*`` the
least-norm dual solution (AP's (5.2) has a typo, resolved in :func:`lojasiewicz_mu`). Theorem 5.1's rate with
step ``γ`` is ``q = 1/(1 + γμ)`` per iteration (``r_t <= r_0 q^t``).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

SEPARABILITY_MAX_N = 12        # enumeration of subsets for non-separable data: 2^n small hull problems
DUAL_MAX_BASES = 50_000        # blocks T = E[K, J] the exact τ may visit
DUAL_SAMPLES = 2_000           # sampled bases for the lower bound when the enumeration is too large
SAMPLE_FLOPS = 2e8             # work per sampling round (m blocks of size 2k cost ~m(2k)^3): ~1 s in all
_CHUNK = 4_096


# --------------------------------------------------------------------------------------------------------------
# 1. the separability system
# --------------------------------------------------------------------------------------------------------------

def hull_distance(Z: np.ndarray) -> float:
    """``min{||Zᵀv|| : v >= 0, Σv = 1}`` (the distance from 0 to the hull of the rows) by Wolfe's min-norm-point
    rule in its simple active-set form: Lawson–Hanson NNLS on ``[Zᵀ; ρ1ᵀ] v ≈ [0; ρ]`` with a heavy ρ, then exact
    renormalisation (any ``v`` of the simplex gives an upper bound; the NNLS solution is its minimiser up to
    ``O(1/ρ²)``)."""
    from scipy.optimize import nnls
    n = Z.shape[0]
    R = float(np.linalg.norm(Z, axis=1).max())
    if R == 0.0:
        return 0.0
    rho = 1e4 * max(1.0, math.sqrt(n))
    A = np.vstack([Z.T / R, np.full((1, n), rho)])
    rhs = np.concatenate([np.zeros(Z.shape[1]), [rho]])
    try:
        v, _ = nnls(A, rhs, maxiter=max(50 * n, 1000))
    except RuntimeError:
        return np.nan
    s = float(v.sum())
    if s <= 0:
        return np.nan
    return float(np.linalg.norm(Z.T @ (v / s)))


def separability_hoffman(Z: np.ndarray, norm_w_star: float | None, separable: bool, tol: float = 1e-9) -> dict:
    """The Hoffman constant of ``{w : Zw >= b}`` (ℓ2 distances, ℓ∞ residuals): ``||w*||`` when separable (module
    docstring, §1); otherwise ``max_J 1/dist(0, conv{z_j : j ∈ J})`` over the strictly separable subsets ``J``
    (PVZ), enumerated for ``n <= SEPARABILITY_MAX_N``: a subset is taken as separable when its hull distance exceeds
    ``tol·max||z_i||``. Returns ``{"value", "exact", "method", "reason"?}``.

    *Proof* that the constant is ``||w*|| = 1/γ*`` for strictly separable data (distances in ``||·||_2``, residuals
    ``(b − Zw)_+`` in ``||·||_∞``). Upper bound: with ``ρ = ||(b − Zw)_+||_∞``, ``Z(w + ρw*) >= Zw + ρ1 >= b``, so
    ``w + ρw*`` is feasible at distance ``ρ||w*||``. Lower bound: ``b = 1``, ``w = 0`` have ``ρ = 1`` and
    ``dist(0, {Zw >= 1}) = ||w*||``. ∎ This is PVZ's characterisation
    ``H = max_{J ∈ S} 1/min{||Z_Jᵀv|| : v >= 0, Σv = 1}`` over the index sets ``J`` with ``Z_J w > 0`` solvable (the
    ℓ1 ball being the dual of the ℓ∞ residual norm), whose largest member is all of ``[n]``. **Where the claim
    fails:** with Euclidean residuals the constant is ``1/min{||Zᵀv|| : v >= 0, ||v||_2 = 1} <= ||w*||``, strictly
    smaller in general (e.g. a repeated support vector); and for data that are not strictly separable it is
    ``max_J ||w*(J)||`` over the strictly separable subsets ``J`` (computed here by enumeration for
    ``n <= SEPARABILITY_MAX_N``, else ``None`` with the reason)."""
    if separable:
        if norm_w_star is None or not np.isfinite(norm_w_star):
            return {"value": None, "exact": False, "method": "norm of w*", "reason": "the reference has no w*"}
        return {"value": float(norm_w_star), "exact": True, "method": "||w*|| (proof in marginkit.reference.hoffman)"}
    n = Z.shape[0]
    if n > SEPARABILITY_MAX_N:
        return {"value": None, "exact": False, "method": "enumeration of separable subsets (PVZ)",
                "reason": f"the data are not separable and the enumeration of 2^n subsets is done for "
                          f"n <= {SEPARABILITY_MAX_N} only (n = {n})"}
    R = float(np.linalg.norm(Z, axis=1).max())
    best, found = 0.0, []     # maximal separable subsets found so far (bitmasks): their subsets give less
    for size in range(n, 0, -1):
        for J in itertools.combinations(range(n), size):
            mask = sum(1 << j for j in J)
            if any(mask & m == mask for m in found):
                continue
            dist = hull_distance(Z[list(J)])
            if np.isfinite(dist) and dist > tol * R:
                found.append(mask)
                best = max(best, 1.0 / dist)
    return {"value": best, "exact": True, "method": "max over strictly separable subsets of ||w*(J)|| (PVZ)",
            "maximal_separable_subsets": len(found)}


# --------------------------------------------------------------------------------------------------------------
# 2. the dual system of Apidopoulos et al. (5.3)
# --------------------------------------------------------------------------------------------------------------

def _block_norms(E_K: np.ndarray, G_K: np.ndarray, Js: np.ndarray, n: int, rank_tol: float):
    """``||B⁻¹||`` for the bases ``[e_I; E_K]`` with ``J = Js[m]`` (inf where ``E[K, J]`` is singular) and the
    smallest singular value of each block."""
    k = E_K.shape[0]
    T = E_K[:, Js].transpose(1, 0, 2)                       # (m, k, k): T[m] = E[K, J_m]
    smin = np.linalg.svd(T, compute_uv=False)[:, -1]
    ok = smin > rank_tol
    out = np.full(len(Js), np.inf)
    if not ok.any():
        return out, smin
    T = T[ok]
    S = np.linalg.inv(T)
    if k == n:
        out[ok] = np.linalg.norm(S, 2, axis=(1, 2))
        return out, smin
    AA = G_K[None] - T @ T.transpose(0, 2, 1)               # E[K, I] E[K, I]ᵀ
    lam, U = np.linalg.eigh(0.5 * (AA + AA.transpose(0, 2, 1)))
    L = U * np.sqrt(np.clip(lam, 0.0, None))[:, None, :]
    H = np.zeros((len(T), 2 * k, 2 * k))
    H[:, :k, :k] = np.eye(k)
    H[:, k:, :k] = -S @ L
    H[:, k:, k:] = S
    out[ok] = np.linalg.norm(H, 2, axis=(1, 2))
    return out, smin


def _witness(E: np.ndarray, K, J, n: int) -> dict:
    """(u, v) of (5.3) attaining ``1/σ_min(B)`` for the basis ``B = [e_I; E_K]`` (``I``: ``box_rows``)."""
    box_rows = np.setdiff1d(np.arange(n), J)
    B = np.vstack([np.eye(n)[box_rows], E[list(K)]])
    U, s, _ = np.linalg.svd(B)
    c = U[:, -1] / s[-1]                                    # multipliers of the rows of B: ||Bᵀc|| = 1
    u = np.zeros(2 * n)                                      # A = [I; −I]: c_i e_i = u_i e_i − u_{n+i} e_i
    u[box_rows] = np.clip(c[:len(box_rows)], 0, None)
    u[n + box_rows] = np.clip(-c[:len(box_rows)], 0, None)
    v = np.zeros(E.shape[0])
    v[list(K)] = c[len(box_rows):]
    return {"u": u, "v": v, "box_rows": box_rows, "data_rows": np.asarray(K, int), "value": float(1.0 / s[-1])}


def dual_system_matrix(Z: np.ndarray) -> np.ndarray:
    """``E = [Zᵀ; 1ᵀ]`` of (A.31)."""
    return np.vstack([Z.T, np.ones((1, Z.shape[0]))])


def _count_text(count: int) -> str:
    """An exact count, or its order of magnitude when it has more than 12 digits (such counts overflow floats)."""
    digits = len(str(count))
    return str(count) if digits <= 12 else f"about 10^{digits - 1}"


def count_blocks(n: int, d: int) -> int:
    return sum(math.comb(d + 1, k) * math.comb(n, k) for k in range(1, min(n, d + 1) + 1))


def dual_hoffman(Z: np.ndarray, max_bases: int = DUAL_MAX_BASES, samples: int = DUAL_SAMPLES, seed: int = 0) -> dict:
    """τ of (5.3) for ``E = [Zᵀ; 1ᵀ]``, ``A = [I; −I]`` (module docstring, §2). Returns a dict with ``value``,
    ``exact``, ``method``, ``bases`` (blocks visited), ``max_bases`` and, when exact, ``witness`` (``u`` (2n),
    ``v`` (d+1), the rows used) and ``smallest_pivot`` (``σ_min`` of the maximising block); otherwise
    ``lower_bound`` (from sampled bases: each is a feasible point of the supremum) and ``reason``.

    *Derivation.* Because ``e_i`` and ``−e_i`` are never both in an independent set, the signs of ``u`` are free, and
    the supremum over an independent row set ``B`` is ``1/σ_min(B)`` (attained at the left singular vector); since
    removing rows can only raise ``σ_min`` (the minimum is taken over fewer multipliers), it suffices to take the
    **bases** ``B = [e_I; E_K]`` of ``R^n``: ``τ = max_B ||B⁻¹||_2`` [the "independent subsets" of PVZ §4]. ``B`` is a
    basis iff the square block ``T = E[K, J]`` (``J`` the complement of ``I``, ``|J| = |K| = k``) is invertible, and
    then ``B⁻¹r = (r_I, T⁻¹(r_K − E[K, I] r_I))``, so ``||B⁻¹||`` is the largest singular value of the ``2k × 2k``
    matrix ``[[I, 0], [−T⁻¹L, T⁻¹]]`` with ``LLᵀ = E[K, I]E[K, I]ᵀ = E_K E_Kᵀ − TTᵀ`` (or ``||T⁻¹||`` when
    ``k = n``). The enumeration visits ``Σ_k C(d+1, k)·C(n, k)`` blocks, polynomial in ``n`` for fixed ``d``; it is
    done when that count is at most ``max_bases`` (the result says so, ``exact: True``, with the witness ``(u, v)``
    of (5.3) that attains ``τ``). Beyond it the value is ``None`` (no upper bound cheaper than the enumeration is
    known to us), with a certified **lower** bound from sampled bases. A block is singular when
    ``σ_min(T) <= max(n, d+1)·ε·||E||`` (NumPy's rank rule): τ is discontinuous at singular blocks, and the reported
    ``smallest_pivot`` says how close the maximising basis is to one."""
    Z = np.asarray(Z, dtype=float)
    n, d = Z.shape
    E = dual_system_matrix(Z)
    rank_tol = max(n, d + 1) * np.finfo(float).eps * float(np.linalg.norm(E, 2))
    total = count_blocks(n, d)
    method = "max over bases [e_I; E_K] of ||B^-1|| ((5.3); Zalinescu 2003, Pena-Vera-Zuluaga 2021)"
    best = (1.0, (), np.zeros(0, int), np.inf)               # K = ∅: B = I, ||B⁻¹|| = 1
    if total > max_bases:
        rng = np.random.default_rng(seed)
        lower, rounds = 1.0, 16
        m = max(samples // rounds, 1)
        # larger blocks cost (2k)^3 each: the sampled sizes are capped so that the bound takes about a second
        kmax = int(max(1, min(n, d + 1, (SAMPLE_FLOPS / m) ** (1 / 3) / 2)))
        for _ in range(rounds):
            k = int(rng.integers(1, kmax + 1))
            K = tuple(sorted(rng.choice(d + 1, size=k, replace=False)))
            Js = np.sort(np.argsort(rng.random((m, n)), axis=1)[:, :k], axis=1)
            E_K = E[list(K)]
            norms, _ = _block_norms(E_K, E_K @ E_K.T, Js, n, rank_tol)
            finite = norms[np.isfinite(norms)]
            if finite.size:
                lower = max(lower, float(finite.max()))
        return {"value": None, "exact": False, "method": method, "bases": total, "max_bases": max_bases,
                "lower_bound": lower,
                "reason": f"the exact supremum visits {_count_text(total)} blocks E[K, J] "
                          f"(more than max_bases = {max_bases}; it grows like C(n, d+1)); lower_bound is the best of "
                          f"{m * rounds} sampled bases with at most {kmax} data rows"}
    for k in range(1, min(n, d + 1) + 1):
        combos = np.array(list(itertools.combinations(range(n), k)), dtype=int)
        for K in itertools.combinations(range(d + 1), k):
            E_K = E[list(K)]
            G_K = E_K @ E_K.T
            for start in range(0, len(combos), _CHUNK):
                Js = combos[start:start + _CHUNK]
                norms, smin = _block_norms(E_K, G_K, Js, n, rank_tol)
                i = int(np.argmax(np.where(np.isfinite(norms), norms, -1.0)))
                if np.isfinite(norms[i]) and norms[i] > best[0]:
                    best = (float(norms[i]), K, Js[i], float(smin[i]))
    value, K, J, pivot = best
    witness = _witness(E, K, J, n) if len(K) else {"u": np.zeros(2 * n), "v": np.zeros(d + 1),
                                                    "box_rows": np.arange(n), "data_rows": np.zeros(0, int),
                                                    "value": 1.0}
    if len(K):
        value = max(value, witness["value"])                 # the same number, by an n × n SVD
    return {"value": value, "exact": True, "method": method, "bases": total, "max_bases": max_bases,
            "witness": witness, "smallest_pivot": pivot}


# --------------------------------------------------------------------------------------------------------------
# 3. the Łojasiewicz constant (5.2)/(A.40) and Theorem 5.1's rate
# --------------------------------------------------------------------------------------------------------------

def lojasiewicz_mu(tau: float, norm_w_star: float, norm_u_star: float, opnorm_Z: float,
                   norm_u0: float = 0.0, r0: float | None = None) -> float:
    """``μ = 1/(8τ²(9M + 6√(2M)R||Z|| + 2R²||Z||² + 2))`` with ``M = r_0`` (``½||w*||²`` for ``u_0 = 0``) and
    ``R = ||u_0|| + 2||u*||`` (A.40).

    **Typo in AP (5.2), resolved here:** the square root printed in (5.2) holds
    ``||Zᵀu_0||² − ||Zᵀu*||² + ⟨1, u_0 − u*⟩``, which is 0 at ``u_0 = 0`` (``1ᵀa* = ||w*||²``), while the proof's
    (A.39)-(A.40) has ``M = D_0(u_0) − D∞(u*)``: the derived (A.40) is the one used here."""
    M = 0.5 * norm_w_star ** 2 if r0 is None else float(r0)
    R = norm_u0 + 2.0 * norm_u_star
    return 1.0 / (8.0 * tau * tau * (9.0 * M + 6.0 * math.sqrt(2.0 * M) * R * opnorm_Z
                                     + 2.0 * R * R * opnorm_Z ** 2 + 2.0))


def linear_rate(mu: float, step: float) -> float:
    """Theorem 5.1: ``r_t <= r_0 q^t`` with ``q = 1/(1 + γμ)`` for the step ``γ <= 1/||Q||``."""
    return 1.0 / (1.0 + step * mu)
