"""Lab 2: implicit versus explicit regularization with the hinge loss (Apidopoulos et al.; Molitor et al.)."""
from _cells import code, md

SETUP = code("""
    import numpy as np
    import matplotlib.pyplot as plt
    from sklearn.metrics.pairwise import rbf_kernel
    import marginkit as mk
    from marginkit import datasets

    plt.rcParams.update({"figure.dpi": 90, "axes.grid": True, "grid.alpha": 0.3})
    np.set_printoptions(precision=4, suppress=True)
""")

TOY = code("""
    X, y = datasets.toy_four_support_vectors(n=80, seed=0)   # w* = (1/2, 1/2), four support vectors
    P = mk.MaxMargin(X, y)                                     # min ½||w||² s.t. y_i x_iᵀw >= 1 (no bias)
    ref = P.reference()
    w_star = ref.w
    lam_star = P.constants()["lambda_star"]
    print(f"w* = {w_star},  γ* = 1/||w*|| = {ref.margin:.6f},  λ* = {lam_star:.4f}")
    sv = P.constants()["support_vectors"]
    assert np.allclose(w_star, 0.5, atol=1e-6) and sv.size == 4 and len(y) - sv.size == 76   # quoted in the text
""")

NOISY_DATA = code("""
    rng = np.random.default_rng(0)
    labels = np.where(rng.random(1200) < 0.5, 1.0, -1.0)
    points = 0.5 * labels[:, None] + rng.normal(scale=np.sqrt(0.4), size=(1200, 2))   # N(±(1/2, 1/2), 0.4 I)
    X_train, y_train, X_test, y_test = points[:600], labels[:600], points[600:], labels[600:]
    kernel_gamma = 1 / (2 * 0.15)                          # exp(-||x - x'||² / (2σ²)) with σ² = 0.15
    K_test = rbf_kernel(X_test, X_train, gamma=kernel_gamma)
    noisy = {p: datasets.noisy_labels(y_train, p, seed=1) for p in (0.0, 0.1, 0.2)}   # flipped TRAINING labels
    bayes_error = np.mean(np.sign(X_test.sum(axis=1)) != y_test)
    print("test error of the Bayes rule sign(x1 + x2):", bayes_error)
    assert 0.10 <= bayes_error <= 0.14          # quoted in section 5: "about 12%"
""")

CELLS = [
    md(r"""
    # Lab 2 — Implicit versus explicit regularization

    *Course on margins, implicit bias and first-order methods.* Papers:

    * **[AP]** V. Apidopoulos, T. Poggio, L. Rosasco, S. Villa, *Iterative regularization in classification via
      hinge loss diagonal descent* (arXiv 2212.12675, v1);
    * **[MNW]** D. Molitor, D. Needell, R. Ward, *Bias of homotopic gradient descent for the hinge loss*
      (Appl. Math. Optim. 2021).

    **Learning goals.** After this lab you can

    1. state the *explicit* regularization path of the hinge loss (the soft-margin SVM $w_\lambda$) and explain
       why it reaches the hard-margin solution $w^*$ at a *finite* $\lambda^*$;
    2. explain *iterative* (implicit) regularization: a method whose regularization parameter $\lambda_t$ goes to
       0 along the iterations, so that the iteration count plays the role of $1/\lambda$;
    3. run AP's dual diagonal descent and MNW's homotopic subgradient method, and compare their convergence to
       $w^*$ with their proven rates;
    4. choose a $\lambda$-schedule, and see on noisy data the trade-off between maximising the margin (converging)
       and generalising (stopping early or decaying slowly);
    5. read a kernel classifier's decision boundary at several iterations.

    **Prerequisites.** Soft-margin SVM and its dual; projected gradient; kernels (Gaussian/RBF). Lab 1 introduces
    `MaxMargin`, `reference()` and `constants()`.

    **Runtime.** About 30 seconds. Data: the 2-D toy set of AP/MNW (`marginkit.datasets`) and a seeded
    Gaussian mixture drawn in the notebook.
    """),
    SETUP,
    md(r"""
    ## 1. Explicit regularization: the hinge-loss path stops at $w^*$

    Write $z_i = y_i x_i$ (AP's sign convention). The explicitly regularized problem (AP eq. 4.8) is the
    soft-margin SVM without bias, with $C = 1/\lambda$:
    $$w_\lambda = \arg\min_w\ \frac1\lambda\sum_{i=1}^n \max(0,\, 1 - z_i^\top w) + \frac12\|w\|^2 .$$
    As $\lambda \to 0$ the hinge penalty dominates and $w_\lambda$ tends to the hard-margin solution
    $w^* = \arg\min\{\tfrac12\|w\|^2 : z_i^\top w \ge 1\}$. For the hinge loss (unlike the logistic or exponential
    losses, whose minimisers run off to infinity) something stronger holds: **$w_\lambda = w^*$ exactly for all
    $\lambda \le \lambda^*$** (Rosset–Zhu–Hastie; AP §3; MNW §2). In terms of the dual (AP eq. 4.9),
    $$D_\lambda(u) = \tfrac12\|Z^\top u\|^2 + \mathbf 1^\top u, \qquad u \in [-1/\lambda,\, 0]^n,
    \qquad w_\lambda = -Z^\top u_\lambda ,$$
    the regularization is a *box* on the multipliers; once the box contains a hard-margin multiplier $u^*$
    ($\lambda \|u^*\|_\infty \le 1$) it no longer binds. So $\lambda^* = 1/\min_{u^*}\|u^*\|_\infty$, a linear
    program that `constants()` solves. (AP state their rates for $\lambda_0 \le 1/\|u^*\|$; their proofs use only
    $\lambda_0\|u^*\|_\infty \le 1$, and $u^*$ need not be unique, hence the minimum.)

    The toy set of AP §6.1 / MNW §5 has four support vectors $\pm(\tfrac12, \tfrac32)$, $\pm(\tfrac32, \tfrac12)$ and
    76 points farther away, so that $w^* = (\tfrac12, \tfrac12)$.
    """),
    TOY,
    code("""
    lams = np.logspace(-0.5, 2, 26)
    path = np.array([mk.SoftMarginSVM(X, y, C=1 / lam, bias=False).reference().w for lam in lams])
    dist = np.linalg.norm(path - w_star, axis=1)

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    axes[0].semilogx(lams, dist, "o-", ms=3)
    axes[0].axvline(lam_star, color="k", ls="--", lw=1, label=rf"$\\lambda^* = {lam_star:.3g}$")
    axes[0].set_xlabel(r"regularization $\\lambda$  (C = 1/$\\lambda$)")
    axes[0].set_ylabel(r"$\\|w_\\lambda - w^*\\|$")
    axes[0].set_title("Explicit path (CVXPY soft-margin SVM, no bias)"); axes[0].legend()
    axes[1].scatter(*X[y > 0].T, s=12, c="C3", label="+1"); axes[1].scatter(*X[y < 0].T, s=12, c="C0", label="−1")
    xs = np.linspace(-3.2, 3.2, 2)
    for lam, col in [(100, "C2"), (30, "C1"), (lam_star, "k")]:
        w = mk.SoftMarginSVM(X, y, C=1 / lam, bias=False).reference().w
        axes[1].plot(xs, -w[0] / w[1] * xs, color=col, label=rf"$w_\\lambda$, $\\lambda$ = {lam:.3g}")
        for sgn in (-1, 1):
            axes[1].plot(xs, (sgn - w[0] * xs) / w[1], color=col, ls=":", lw=1)
    axes[1].set_xlim(-3.2, 3.2); axes[1].set_ylim(-3.2, 3.2); axes[1].set_aspect("equal")
    axes[1].set_xlabel("$x_1$"); axes[1].set_ylabel("$x_2$"); axes[1].legend(fontsize=8, loc="upper left")
    axes[1].set_title(r"boundary $w^\\top x = 0$ and margins $w^\\top x = \\pm 1$")
    fig.tight_layout(); plt.show()
    """),
    md(r"""
    Left: the distance to $w^*$ drops to zero exactly at $\lambda^*$ (AP scaling, summed hinge). Right: on this
    symmetric set the *direction* of $w_\lambda$ is the same for every $\lambda$; regularization shrinks $w$, and
    the dotted margin lines $w^\top x = \pm 1$ move out to the support vectors only when $\lambda \le \lambda^*$.

    ## 2. Implicit regularization, I: AP's diagonal descent on the dual

    Instead of solving $D_\lambda$ for one $\lambda$, AP take **one projected-gradient step per value of a
    decreasing sequence $\lambda_t \to 0$** (Algorithm 1, eqs. 4.1–4.3), starting at $u_0 = 0$:
    $$u_{t+1} = \Pi_{[-1/\lambda_t,\,0]^n}\!\big(u_t - \gamma\,(Qu_t + \mathbf 1)\big),\qquad
    w_{t+1} = -Z^\top u_{t+1},\qquad Q = ZZ^\top,\ \gamma = 1/\|Q\|.$$
    The box widens as $\lambda_t$ decreases ("diagonal": the iteration moves along the path and towards its end at
    once). AP prove $w_t \to w^*$ for *any* schedule decreasing to 0, linearly fast (Thm 5.1) when
    $\lambda_0 \le \lambda^*$; the inertial Algorithm 2 (FISTA-type extrapolation with parameter $\alpha \ge 3$)
    has $\|w_t - w^*\| = O(1/t)$ (Thm 5.2). In marginkit: methods `diagonal` and `diagonal-inertial`, option
    `schedule` (default `"inverse"`, $\lambda_t = \lambda_0/(t+1)$) and `lambda0`.

    We step through the plan and draw the iterates: boundary $w_t^\top x = 0$ and margins $w_t^\top x = \pm1$.
    """),
    code("""
    plan = P.compile("diagonal", schedule="inverse", lambda0=4.0)
    states = list(plan.iterate(1000))
    print("step γ = 1/||Q|| =", f"{plan.gamma:.3e}", "  state fields:", list(vars(states[1]))[:4])

    fig, axes = plt.subplots(1, 4, figsize=(13, 3.6), sharey=True)
    for ax, t in zip(axes, [1, 10, 100, 1000]):
        w = states[t].w
        ax.scatter(*X[y > 0].T, s=10, c="C3"); ax.scatter(*X[y < 0].T, s=10, c="C0")
        ax.plot(xs, -w[0] / w[1] * xs, "k", lw=1.5)
        for sgn in (-1, 1):
            ax.plot(xs, (sgn - w[0] * xs) / w[1], "k:", lw=1)
            ax.plot(xs, (sgn - w_star[0] * xs) / w_star[1], color="C2", lw=0.8, alpha=0.6)
        ax.set_xlim(-3.2, 3.2); ax.set_ylim(-3.2, 3.2); ax.set_aspect("equal"); ax.set_xlabel("$x_1$")
        ax.set_title(f"t = {t}:  ||w_t - w*|| = {np.linalg.norm(w - w_star):.1e}", fontsize=9)
    axes[0].set_ylabel("$x_2$")
    fig.suptitle("Diagonal descent on the toy set: boundary (solid), margins (dotted), margins of w* (green)")
    fig.tight_layout(rect=(0, 0, 1, 0.94)); plt.show()
    """),
    md(r"""
    ## 3. Implicit regularization, II: MNW's homotopic subgradient method

    MNW work in the **primal**: stages $k = 0, 1, \dots$ of $T_k$ subgradient steps on the regularized hinge loss
    $f_{\lambda_k}(w) = \frac1n\sum_i \max(0, 1 - z_i^\top w) + \frac{\lambda_k}2\|w\|^2$ (eq. 2, averaged hinge), each
    stage warm-started at the *average* of the previous stage's iterates, with $\lambda_k$ and the step $\eta_k$
    decreasing geometrically and $T_k$ growing. The formulas of our copy of the paper are lost; marginkit uses a
    reconstruction, the standard analysis fitted to every surviving sentence ($\lambda_k = \lambda_0 2^{-k}$,
    $\eta_k = \eta_0 8^{-k}$, $T_k = T_0 c^k$; method `homotopic`), with the rate
    $\|\tilde w_K - w^*\| = O(T^{-1/(4+\delta)})$ in the total number $T$ of subgradient steps ($\delta = 2$ by
    default: $T^{-1/6}$). With the averaged hinge, $\lambda^*$ is divided by $n$; we start at
    $\lambda_0 = 4\lambda^*/n$ so that the fourth stage is below $\lambda^*$.

    We compare, on the same budget, the distance $\|w_t - w^*\|$ and the margin gap $\gamma^* - \gamma(w_t)$
    (log–log axes) with the rates proven for each method, drawn as guide lines. As a baseline we add gradient
    descent on the logistic loss (method `gd` with `loss="logistic"`), whose *direction* converges to $w^*$ only
    at the rate $O(1/\log t)$ (Soudry et al. 2018) while its norm grows without bound.
    """),
    code("""
    T_budget = 50_000
    runs = {
        "diagonal (AP Alg. 1)": P.solve("diagonal", lambda0=4.0, max_iter=3000, tol=0),
        "diagonal-inertial, α = 10 (AP Alg. 2)": P.solve("diagonal-inertial", lambda0=4.0, alpha=10, max_iter=3000,
                                                         tol=0),
        "homotopic (MNW)": P.solve("homotopic", lambda0=4 * lam_star / len(y), stage_growth=16, max_iter=T_budget,
                                   tol=0),
        "gd, logistic loss": P.solve("gd", loss="logistic", max_iter=20_000, tol=0),
    }
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for name, res in runs.items():
        tr = res.trace
        it = tr["iteration"]; keep = it > 0
        if not name.startswith("gd"):
            axes[0].loglog(it[keep], tr["dist_to_opt"][keep], label=name)
        axes[1].loglog(it[keep], np.abs(tr["margin_gap"][keep]) + 1e-16, label=name)
    t = np.logspace(0, np.log10(T_budget), 50)
    axes[0].loglog(t, 0.5 / t, "k:", lw=1, label=r"guide $1/t$ (AP Thm 5.2)")
    axes[0].loglog(t, 0.5 * t ** (-1 / 6), "k--", lw=1, label=r"guide $T^{-1/6}$ (MNW, $\\delta = 2$)")
    axes[0].set_ylim(1e-13, 3); axes[0].set_xlabel("iteration t  (subgradient steps T)")
    axes[0].set_ylabel(r"$\\|w_t - w^*\\|$"); axes[0].set_title("Distance to the hard-margin solution")
    axes[0].legend(fontsize=8)
    axes[1].loglog(t, 0.5 / np.log(t + 1), "k-.", lw=1, label=r"guide $1/\\log t$ (GD)")
    axes[1].set_ylim(1e-13, 3); axes[1].set_xlabel("iteration t")
    axes[1].set_ylabel(r"margin gap $\\gamma^* - \\gamma(w_t)$"); axes[1].set_title("Margin gap")
    axes[1].legend(fontsize=8)
    fig.tight_layout(); plt.show()
    for name, res in runs.items():
        print(f"{name:40s} iterations {res.iterations:6d}  time {res.time:.2f}s  "
              f"margin gap {ref.margin - res.margin:.2e}")

    # what the text below reads off the figure: the inertial method is ahead of Algorithm 1 (down to rounding),
    # the homotopic error stays on its plateau during stages 0-2 and drops after, logistic GD's gap grows first
    d1, d2 = (runs[k].trace["dist_to_opt"][-1]
              for k in ("diagonal (AP Alg. 1)", "diagonal-inertial, α = 10 (AP Alg. 2)"))
    assert d2 < d1 and d2 < 1e-9
    hom = runs["homotopic (MNW)"].trace
    plateau = hom["dist_to_opt"][(hom["stage"] <= 2) & (hom["iteration"] > 0)]
    assert plateau.min() > 0.05 and hom["dist_to_opt"][-1] < 0.1 * plateau.min()
    gd_gap = runs["gd, logistic loss"].trace["margin_gap"]
    assert gd_gap.max() > 2 * gd_gap[1]
    """),
    md(r"""
    Reading the figure:

    * AP's Algorithm 1 converges linearly (a straight line on a *semi*-log plot, a curve bending down here), the
      inertial version faster still and down to rounding error.
    * The homotopic method sits on a **plateau** while $\lambda_k > \lambda^*$ (stages 0–2: it converges to the
      biased $w_{\lambda_k}$, not to $w^*$) and drops once $\lambda_k < \lambda^*$; its overall slope is
      the slow $T^{-1/6}$ of the theory (the stage lengths grow by a factor $c = 16$).
    * Logistic GD improves the margin only logarithmically (the guide line). On this very symmetric set its
      first step already points almost along $w^*$, so its margin gap starts small — and then *grows* before it
      will eventually decrease: the implicit bias of GD is slow and not monotone.

    The margin gap of a symmetric toy problem is not monotone for any method; on this set the
    λ-schedule also makes no difference to AP's methods, because the dual iterates never reach the box. To see
    schedules at work we need data whose dual solution is large: noisy labels and a kernel.

    ## 4. λ-schedules

    AP's Figures 4–5 compare $\lambda_t = \lambda_0/t$ for several $\lambda_0$ and the decays $8/\log t$,
    $8/\sqrt t$, $8/t$, $8/t^2$, $8/2^t$. marginkit shifts the index so that every schedule is defined from
    $t = 0$ (`"inverse-log"`: $\lambda_0/\log(t+2)$, `"inverse-sqrt"`, `"inverse"`, `"inverse-square"`,
    `"geometric"`), and accepts any non-increasing callable `t -> λ_t`. What matters is the box half-width
    $1/\lambda_t$, i.e. the largest multiplier allowed at iteration $t$ — the "$C_t$" of an SVM solved at
    iteration $t$.
    """),
    code("""
    schedules = ["inverse-log", "inverse-sqrt", "inverse", "inverse-square", "geometric"]
    names = {"inverse-log": r"$8/\\log(t+2)$", "inverse-sqrt": r"$8/\\sqrt{t+1}$", "inverse": r"$8/(t+1)$",
             "inverse-square": r"$8/(t+1)^2$", "geometric": r"$8/2^t$"}
    inv_lam = {"inverse-log": lambda t: np.log(t + 2) / 8, "inverse-sqrt": lambda t: np.sqrt(t + 1) / 8,
               "inverse": lambda t: (t + 1) / 8, "inverse-square": lambda t: (t + 1.0) ** 2 / 8,
               "geometric": lambda t: 2.0 ** np.minimum(t, 40) / 8}            # 1/λ_t of each schedule, λ0 = 8
    tt = np.arange(0, 5001)
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for sch in schedules:
        ax.loglog(tt + 1, inv_lam[sch](tt), label=names[sch])
    ax.set_ylim(1e-1, 1e8); ax.set_xlabel("iteration t + 1"); ax.set_ylabel(r"box half-width $1/\\lambda_t$ (= $C_t$)")
    ax.set_title("The five decays of AP Fig. 5 ($\\lambda_0 = 8$)"); ax.legend(fontsize=9); plt.show()
    """),
    md(r"""
    ## 5. The noisy-kernel experiment: margin against test error

    AP §4.2 (Figs. 4–5): 1200 points in $\mathbb R^2$ from two Gaussians $\mathcal N(\pm(\tfrac12,\tfrac12),\,0.4\,I)$,
    split 600/600 into training and test sets; a fraction $p \in \{0, 10, 20\%\}$ of the **training** labels is
    flipped (test labels stay clean); Gaussian kernel $k(x,x') = \exp(-\|x-x'\|^2/(2\sigma^2))$ with
    $\sigma^2 = 0.15$. The classes overlap, so with a kernel the training set is separable only with a tiny
    margin, and the hard-margin classifier interpolates every (noisy) training label.

    With a kernel, `MaxMargin(X, y, kernel="rbf", gamma=...)` runs AP's method on the coefficients:
    $f_t(x) = \sum_i (-u_{t,i})\, y_i\, k(x_i, x)$ (AP Remark 4.1, sign and labels restored). From each state we
    read the normalised kernel margin $\min_i y_i f_t(x_i)/\|f_t\|_{\mathcal H}$ (`plan.margin(state)`) and the
    test error. The kernel hard-margin problem of noisy data is so ill-conditioned (its Gram matrix is positive
    definite, but barely) that we plot the margin itself rather than a gap to a CVXPY reference.
    """),
    NOISY_DATA,
    code("""
    T_kernel = 3000
    record = np.unique(np.logspace(0, np.log10(T_kernel), 60).astype(int))
    curves = {}
    for p, y_noisy in noisy.items():
        Pk = mk.MaxMargin(X_train, y_noisy, kernel="rbf", gamma=kernel_gamma)
        for sch in schedules:
            plan_k = Pk.compile("diagonal", schedule=sch, lambda0=8.0)
            margin, test_err = [], []
            for t, st in enumerate(plan_k.iterate(T_kernel)):
                if t in record:
                    margin.append(plan_k.margin(st))
                    test_err.append(np.mean(np.sign(K_test @ (-st.u * y_noisy)) != y_test))
            curves[p, sch] = (np.array(margin), np.array(test_err))

    fig, axes = plt.subplots(2, 3, figsize=(14, 7), sharex=True)
    for j, p in enumerate(noisy):
        for sch in schedules:
            m, e = curves[p, sch]
            ls = "--" if sch in ("inverse-square", "geometric") else "-"
            axes[0, j].semilogx(record, m, ls, label=names[sch]); axes[1, j].semilogx(record, e, ls, label=names[sch])
        axes[0, j].set_title(f"{int(100 * p)}% flipped training labels")
        axes[0, j].set_ylabel("normalised kernel margin"); axes[1, j].set_ylabel("test error")
        axes[1, j].set_xlabel("iteration t"); axes[1, j].set_ylim(0.1, 0.3)
    axes[0, 0].legend(fontsize=8); fig.tight_layout(); plt.show()
    for p in noisy:
        print(f"p = {p:.0%}: test error at t = {T_kernel}: " +
              ", ".join(f"{sch} {curves[p, sch][1][-1]:.3f}" for sch in schedules))

    # what the text below reads off the figure
    for p in noisy:
        for sch in ("inverse-square", "geometric"):          # the dashed curves lie exactly on 8/t
            assert np.allclose(curves[p, sch][0], curves[p, "inverse"][0])
        assert curves[p, "inverse"][0][-1] > max(curves[p, "inverse-log"][0][-1], curves[p, "inverse-sqrt"][0][-1])
    for p in (0.1, 0.2):                                      # with noise: fast decays end worse than slow ones
        assert curves[p, "inverse"][1][-1] > curves[p, "inverse-log"][1][-1]
        assert curves[p, "inverse"][1][-1] > curves[p, "inverse"][1].min()   # ... their test error rises with t
    clean = [curves[0.0, sch][1][-1] for sch in schedules]   # without noise: about equal
    assert max(clean) - min(clean) <= 0.03
    """),
    md(r"""
    What the figure shows (compare AP's discussion of Figs. 4–5 in §6.1):

    * **Margin** (top): the fast decays ($8/t$, $8/t^2$, $8/2^t$; the last two dashed, exactly on top of $8/t$)
      push the margin up fastest: their box is wide enough almost immediately and never binds again. The slow
      decays $8/\log t$ and $8/\sqrt t$ keep the multipliers small and the margin low — they behave like a
      soft-margin SVM with a small $C_t = 1/\lambda_t$.
    * **Test error** (bottom): without noise all schedules generalise about equally (the Bayes error of this
      mixture is about 12%). With 10% and 20% flipped labels, converging towards the hard-margin solution means
      fitting the flipped labels: the test error of the fast decays *rises* with $t$, while the slow decays keep
      it near the best value. Iterations act as a regularization parameter: more iterations = less regularization.
    * Below some speed, a faster decay brings nothing: once $1/\lambda_t$ exceeds the size the multipliers reach,
      the schedule is invisible.

    ## 6. The decision boundary along the iterations

    Now the picture behind these curves: 20% flipped labels, decay $8/(t+1)$, the boundary $f_t(x) = 0$ at four
    iterations (flipped training points are circled), and for comparison the slow decay $8/\log(t+2)$ at the last
    iteration.
    """),
    code("""
    p = 0.2
    y_noisy = noisy[p]
    flipped = y_noisy != y_train
    Pk = mk.MaxMargin(X_train, y_noisy, kernel="rbf", gamma=kernel_gamma)
    g1, g2 = np.meshgrid(np.linspace(-2.6, 2.6, 110), np.linspace(-2.6, 2.6, 110))
    K_grid = rbf_kernel(np.column_stack([g1.ravel(), g2.ravel()]), X_train, gamma=kernel_gamma)
    snapshots = [10, 100, 1000, T_kernel]
    fast = {t: st.u.copy()
            for t, st in enumerate(Pk.compile("diagonal", schedule="inverse", lambda0=8.0).iterate(T_kernel))
            if t in snapshots}
    slow = list(Pk.compile("diagonal", schedule="inverse-log", lambda0=8.0).iterate(T_kernel))[-1].u

    panels = [(f"8/(t+1), t = {t}", fast[t]) for t in snapshots] + [(f"8/log(t+2), t = {T_kernel}", slow)]
    fig, axes = plt.subplots(1, 5, figsize=(16, 3.7), sharey=True)
    for ax, (title, u) in zip(axes, panels):
        f = (K_grid @ (-u * y_noisy)).reshape(g1.shape)
        ax.contourf(g1, g2, np.sign(f), levels=[-2, 0, 2], colors=["#cfe0f3", "#f6d3d0"], alpha=0.8)
        ax.contour(g1, g2, f, levels=[0], colors="k", linewidths=1)
        ax.scatter(*X_train[y_noisy > 0].T, s=4, c="C3"); ax.scatter(*X_train[y_noisy < 0].T, s=4, c="C0")
        ax.scatter(*X_train[flipped].T, s=22, facecolors="none", edgecolors="k", linewidths=0.6)
        err = np.mean(np.sign(K_test @ (-u * y_noisy)) != y_test)
        ax.set_title(f"{title}\\ntest error {err:.3f}", fontsize=9); ax.set_xlabel("$x_1$"); ax.set_aspect("equal")
        ax.grid(False)
    axes[0].set_ylabel("$x_2$")
    fig.suptitle("Kernel diagonal descent, 20% flipped labels (circled); red region: predicted +1")
    fig.tight_layout(rect=(0, 0, 1, 0.92)); plt.show()
    """),
    md(r"""
    Early iterates (and the slowly decaying schedule) draw a smooth boundary close to the Bayes rule
    $x_1 + x_2 = 0$; late iterates of the fast schedule carve islands around the flipped points — they are on the
    way to the hard-margin (interpolating) solution. **Early stopping and slow decay are regularizers.**

    ## Summary

    * The hinge-loss regularization path is *exact*: $w_\lambda = w^*$ for $\lambda \le \lambda^*$
      (`constants()["lambda_star"]`).
    * Diagonal descent (AP) decreases $\lambda_t$ at every step of a dual projected-gradient method; homotopic
      descent (MNW) decreases $\lambda_k$ in stages of primal subgradient steps. Both converge to $w^*$ for any
      decreasing schedule, at very different proven rates (linear and $O(1/t)$ versus $O(T^{-1/6})$).
    * On noisy data, the iteration count and the speed of the schedule are regularization parameters: the margin
      keeps growing while the test error gets worse.

    ## Exercises

    Solutions: `solutions/02_implicit_vs_explicit_regularization_solutions.ipynb`.

    1. **Monotone dual gap (AP Lemma 5.3, 5.2).** For the toy-set states of section 2, compute
       $r_t = \tfrac12\|w_t\|^2 + \mathbf 1^\top u_t - D^*$ with $D^* = -\tfrac12\|w^*\|^2$. Check that $r_t$ never
       increases and that $\tfrac12\|w_t - w^*\|^2 \le r_t$ at every $t$. Plot $r_t$ on a semi-log axis: is the
       decay linear (Thm 5.1)?
    2. **A constant λ is biased.** Run `diagonal` with `schedule="constant"` and $\lambda = 2\lambda^*$ and
       $\lambda = \lambda^*/2$ for 5000 iterations. Compare the limits with the CVXPY soft-margin solutions
       `mk.SoftMarginSVM(X, y, C=1/λ, bias=False).reference().w` and with $w^*$.
    3. **The inertia parameter.** Run `diagonal-inertial` on the toy set with $\alpha \in \{3, 10, 30\}$ for
       1000 iterations and plot $\|w_t - w^*\|$ (trace column `dist_to_opt`) on log–log axes together with
       Algorithm 1. AP remark that $\alpha$ "decisively" affects where Algorithm 2 pays off: what do you see?
    4. **Explicit regularization on the noisy data.** For the 20%-noise kernel data, solve the soft-margin SVM
       `mk.SoftMarginSVM(X_train, y_noisy, C=C, bias=False, kernel="rbf", gamma=kernel_gamma)` for
       $C \in \{0.1, 0.3, 1, 3, 10, 30, 100\}$ (method `"diagonal"`, i.e. AP's algorithm with a constant
       $\lambda = 1/C$; `max_iter=3000`) and plot the test error against $C$. Compare with the implicit path of
       section 5: which iteration of the $8/(t+1)$ schedule has $C_t = 1/\lambda_t = C$, and is its test error
       similar?
    5. **Stage outputs of the homotopic method.** MNW §6.4 propose to output the *best* iterate of each stage
       instead of the average (`output="best"`). Compare both on the toy set (distance to $w^*$ and margin gap
       against $T$).
    """),
    code("""
    # Your work here.
    """),
]

SOLUTIONS = [
    md(r"""
    # Lab 2 — Solutions to the exercises

    Companion of `../02_implicit_vs_explicit_regularization.ipynb`. The first cells rebuild the toy set and the
    noisy kernel data exactly as in the lab.
    """),
    SETUP,
    TOY,
    md(r"""
    ## Exercise 1 — monotone dual gap

    AP's Lemma 5.3 holds for any non-increasing schedule: the regularized dual objective $D_t(u_t)$ at the
    iterate never increases, and $D_t \ge D_\infty$ pointwise; Lemma 5.2 is strong convexity of $\tfrac12\|w\|^2$
    seen through the dual.
    """),
    code("""
    states = list(P.compile("diagonal", schedule="inverse", lambda0=4.0).iterate(3000))
    D_star = -0.5 * w_star @ w_star
    r = np.array([0.5 * st.w @ st.w + st.u.sum() - D_star for st in states])
    half_dist_sq = np.array([0.5 * np.sum((st.w - w_star) ** 2) for st in states])
    print("r_t non-increasing:", bool(np.all(np.diff(r) <= 1e-12 * abs(D_star))))
    print("½||w_t - w*||² <= r_t:", bool(np.all(half_dist_sq <= r + 1e-12)))
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.semilogy(np.clip(r, 1e-17, None), label="$r_t$")
    ax.semilogy(np.clip(half_dist_sq, 1e-17, None), label=r"$\\frac{1}{2}\\|w_t - w^*\\|^2$")
    ax.set_xlabel("iteration t"); ax.set_ylabel("value"); ax.legend(); plt.show()
    """),
    md(r"""
    After a transient, $\log r_t$ decreases along a straight line: the linear rate of Theorem 5.1 (whose
    constant $\mu$ is not computable in practice), until it reaches the accuracy of the reference $w^*$.

    ## Exercise 2 — a constant λ is biased
    """),
    code("""
    for lam in (2 * lam_star, lam_star / 2):
        res = P.solve("diagonal", schedule="constant", lambda0=lam, max_iter=5000, tol=0)
        raw = X.T @ (res.dual["a"] * y)            # the iterate itself: w_t = -Zᵀu_t = Σ a_i y_i x_i, a = -u
        w_soft = mk.SoftMarginSVM(X, y, C=1 / lam, bias=False).reference().w
        print(f"λ = {lam:6.3f}: iterate {raw},  CVXPY w_λ {w_soft},  "
              f"||w_λ - w*|| = {np.linalg.norm(w_soft - w_star):.3f}")
    """),
    md(r"""
    (`res.w` of a `MaxMargin` result is rescaled onto the constraint set $\min_i y_i x_i^\top w = 1$, so we read the
    raw iterate from the dual variable.) With $\lambda = 2\lambda^*$ the iteration converges to the soft-margin
    solution $w_\lambda \neq w^*$ — shorter, because the box caps the multipliers; with $\lambda = \lambda^*/2$ the
    box contains $u^*$ and the limit is $w^*$ (with a constant $\lambda$, Algorithm 1 solves the soft-margin dual
    (4.9)). A *decreasing* schedule removes the bias without knowing $\lambda^*$.

    ## Exercise 3 — the inertia parameter
    """),
    code("""
    fig, ax = plt.subplots(figsize=(6.5, 4))
    res = P.solve("diagonal", lambda0=4.0, max_iter=1000, tol=0)
    ax.loglog(res.trace["iteration"][1:], res.trace["dist_to_opt"][1:], "k", label="Algorithm 1")
    for alpha in (3, 10, 30):
        res = P.solve("diagonal-inertial", lambda0=4.0, alpha=alpha, max_iter=1000, tol=0)
        ax.loglog(res.trace["iteration"][1:], res.trace["dist_to_opt"][1:], label=f"Algorithm 2, α = {alpha}")
    ax.set_xlabel("iteration t"); ax.set_ylabel(r"$\\|w_t - w^*\\|$"); ax.set_ylim(1e-16, 2); ax.legend(); plt.show()
    """),
    md(r"""
    Larger $\alpha$ means less extrapolation early on ($t/(t+\alpha)$ stays small longer): slower at first, much
    faster later. Which $\alpha$ is best therefore depends on when you stop — exactly AP's remark.

    ## Exercise 4 — explicit regularization on the noisy data
    """),
    NOISY_DATA,
    code("""
    y_noisy = noisy[0.2]
    Cs = [0.1, 0.3, 1, 3, 10, 30, 100]
    errs = []
    for C in Cs:
        res = mk.SoftMarginSVM(X_train, y_noisy, C=C, bias=False, kernel="rbf", gamma=kernel_gamma).solve(
            "diagonal", max_iter=3000)
        errs.append(np.mean(res.predict(X_test) != y_test))
    # implicit path, schedule 8/(t+1): C_t = (t+1)/8
    Pk = mk.MaxMargin(X_train, y_noisy, kernel="rbf", gamma=kernel_gamma)
    t_of_C = {int(8 * C - 1): C for C in Cs if 8 * C - 1 >= 0}
    implicit = {}
    for t, st in enumerate(Pk.compile("diagonal", schedule="inverse", lambda0=8.0).iterate(max(t_of_C))):
        if t in t_of_C:
            implicit[t_of_C[t]] = np.mean(np.sign(K_test @ (-st.u * y_noisy)) != y_test)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.semilogx(Cs, errs, "o-", label="explicit: soft-margin SVM with C")
    ax.semilogx(list(implicit), list(implicit.values()), "s--", label=r"implicit: iterate $t$ with $1/\\lambda_t = C$")
    ax.set_xlabel("C"); ax.set_ylabel("test error"); ax.set_title("20% flipped labels"); ax.legend(); plt.show()
    """),
    md(r"""
    The explicit SVM shows the classical U-shape: small $C$ underfits, large $C$ fits the flipped labels. The
    iterate $t$ at which $1/\lambda_t = C$ has *not* solved the SVM with that $C$ (it has only taken $t$ steps), so
    the two curves differ in detail, but the trend is the same: the iteration count acts like $C$.

    ## Exercise 5 — stage outputs of the homotopic method
    """),
    code("""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for out in ("average", "best"):
        res = P.solve("homotopic", lambda0=4 * lam_star / len(y), stage_growth=16, output=out, max_iter=50_000, tol=0)
        it = res.trace["iteration"]; k = it > 0
        axes[0].loglog(it[k], res.trace["dist_to_opt"][k], label=f"output = {out!r}")
        axes[1].loglog(it[k], np.abs(res.trace["margin_gap"][k]) + 1e-16, label=f"output = {out!r}")
    axes[0].set_ylabel(r"$\\|\\tilde w - w^*\\|$"); axes[1].set_ylabel("margin gap")
    for ax in axes:
        ax.set_xlabel("subgradient steps T"); ax.legend()
    fig.tight_layout(); plt.show()
    """),
    md(r"""
    The best iterate is much closer to $w^*$ once $\lambda_k < \lambda^*$ (MNW Fig. 5: "significantly faster in
    error"); the margin gap, which only sees the direction, is comparable. The averaged output pays for the
    slowly decreasing steps of the subgradient method.
    """),
]
