"""Lab 4: the geometry of l_p minimum-norm solutions, Dykstra's algorithm and accelerated coordinate ascent
(Raj & Bach 2021)."""
from _cells import code, md

SETUP = code("""
    import numpy as np
    import matplotlib.pyplot as plt
    import marginkit as mk

    plt.rcParams.update({"figure.dpi": 90, "axes.grid": True, "grid.alpha": 0.3})
    np.set_printoptions(precision=4, suppress=True)

    def lp_sphere(radius, p, num=400):
        \"\"\"Points of the 2-D sphere {θ : ||θ||_p = radius}.\"\"\"
        phi = np.linspace(0, 2 * np.pi, num)
        u = np.column_stack([np.cos(phi), np.sin(phi)])
        return radius * u / np.linalg.norm(u, ord=p, axis=1, keepdims=True)
""")

RB_DATA = code("""
    def rb_data(setting, n, d, seed=0):
        \"\"\"Raj & Bach §4 generator: x ~ N(0, Σ), Σ = diag(i^-1.5) ("l2") or diag(1/i) ("sparse", with a
        50-sparse θ_true); y = sign(xᵀθ_true + 0.005); pairs with |xᵀθ_true + 0.005| <= 0.1 are discarded (the
        paper prints the filter without the absolute value, which would discard every negative example).
        Returns n training and n test pairs.\"\"\"
        rng = np.random.default_rng(seed)
        i = np.arange(1, d + 1)
        sd = np.sqrt(i**-1.5 if setting == "l2" else 1.0 / i)
        theta = rng.standard_normal(d)
        if setting == "sparse":
            theta[rng.choice(d, size=d - 50, replace=False)] = 0.0
        x = rng.standard_normal((20 * n, d)) * sd
        s = x @ theta + 0.005
        keep = np.abs(s) > 0.1
        x, lab = x[keep][: 2 * n], np.sign(s[keep])[: 2 * n]
        return x[:n], lab[:n], x[n:], lab[n:]
""")

CELLS = [
    md(r"""
    # Lab 4 — The geometry of $\ell_p$ minimum-norm solutions

    *Course on margins, implicit bias and first-order methods.* Paper: A. Raj, F. Bach, **Explicit
    regularization of stochastic gradient methods through duality**, AISTATS 2021 ("RB" below; equation numbers
    are the paper's).

    **Learning goals.** After this lab you can

    1. draw the minimum-$\ell_p$-norm point of a feasible set as the point where the smallest $\ell_p$ ball
       touches it, and predict how $p$ changes it ($p \to 1$: sparse; $p = 2$: orthogonal projection; $p > 2$:
       spread out);
    2. write the dual of $\min \tfrac12\|\theta\|_p^2$ under linear constraints and recover $\theta$ from the dual
       through the mirror map $\nabla\psi^*$;
    3. recognise randomized dual coordinate ascent as **Dykstra's algorithm** and see, step by step, why its
       correction terms matter (plain alternating projections find *a* feasible point, not the projection);
    4. compare plain and accelerated coordinate ascent (RB Algorithms 1 and 2) with their proven rates.

    **Prerequisites.** Norms and dual norms, Hölder's inequality, Lagrange duality, projections onto convex sets.
    Lab 1 (max margin) helps for section 5.

    **Runtime.** About 30 seconds. Data: small hand-made 2-D sets and RB's synthetic generator (seeded).
    """),
    md(r"""
    ## 1. The problem

    RB study the minimum-norm (more generally, minimum-Bregman) point of an intersection of simple constraints
    (RB eq. 2). marginkit's `MinNormFeasibility(X, y, p, constraint)` is the case of linear constraints:
    $$\min_\theta\ \psi(\theta) = \tfrac12\|\theta\|_p^2 \quad\text{s.t.}\quad
    \begin{cases} y_i\, x_i^\top\theta \ge 1 &
    \text{(`constraint="margin"`: the } \ell_p \text{ "perceptron", RB eq. 11)}\\
    x_i^\top\theta = y_i & \text{(`constraint="interpolation"`: minimum-norm interpolation)}\end{cases}$$
    For $1 < p \le 2$, $\psi$ is $(p-1)$-strongly convex with respect to $\|\cdot\|_p$, which is what RB's
    algorithms need; for $p > 2$ it is not, and marginkit offers only the CVXPY reference (exact power cones).
    For the margin constraints, $\theta^*/\|\theta^*\|_p$ is the $\ell_p$-max-margin classifier and
    $1/\|\theta^*\|_p$ its margin.

    ## 2. Pictures in two dimensions

    **One equation.** With a single constraint $a^\top\theta = 1$ the feasible set is a line, and the solution is
    where the $\ell_p$ ball, inflated from the origin, first touches the line. Below, $a = (1, 0.5)$ and the
    reference is computed by CVXPY for each $p$.
    """),
    SETUP,
    code("""
    a = np.array([1.0, 0.5])
    ps = [1.1, 2.0, 4.0]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.3))
    line = np.linspace(-0.6, 2.2, 2)
    for ax, p in zip(axes, ps):
        Pp = mk.MinNormFeasibility(a[None, :], [1.0], p=p, constraint="interpolation")
        theta = Pp.reference().w
        r = np.linalg.norm(theta, ord=p)
        ax.plot(line, (1 - a[0] * line) / a[1], "k", lw=1.5, label=r"feasible line $a^\\top\\theta = 1$")
        ax.plot(*lp_sphere(r, p).T, color="C0",
                label=rf"$\\ell_{{{p:g}}}$ sphere of radius $\\|\\theta^*\\|_{{{p:g}}}$")
        ax.plot(*theta, "o", color="C3", ms=8, label=rf"$\\theta^*_{{{p:g}}}$ = ({theta[0]:.3f}, {theta[1]:.3f})")
        ax.set_xlim(-1.3, 1.9); ax.set_ylim(-1.3, 1.9); ax.set_aspect("equal")
        ax.set_xlabel(r"$\\theta_1$"); ax.set_ylabel(r"$\\theta_2$"); ax.set_title(f"p = {p:g}")
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout(); plt.show()
    """),
    md(r"""
    As $p \to 1$ the ball gets pointed corners on the axes and the solution moves to the axis of the *largest*
    coefficient of $a$ (a sparse solution); $p = 2$ gives the orthogonal projection of the origin onto the line
    ($\theta^* \parallel a$); $p = 4$ pushes towards equal magnitudes. (Exercise 1 derives the closed form.)

    **Margin constraints.** Now three labelled points and the constraints $y_i x_i^\top\theta \ge 1$: the feasible
    set is an unbounded polygon. We keep the line of the first picture as the first constraint and add two
    constraints that cut off the $p = 1.1$ and $p = 4$ solutions found above. The solution then lies on one face
    or at a vertex of the polygon, depending on $p$.
    """),
    code("""
    X2 = np.array([[1.0, 0.5], [0.0, -5.0], [4 / 3, 0.0]])   # constraints θ1 + θ2/2 >= 1, θ2 >= 0.2, θ1 >= 0.75
    y2 = np.array([1.0, -1.0, 1.0])
    Z2 = y2[:, None] * X2                                    # signed rows y_i x_i
    g1, g2 = np.meshgrid(np.linspace(-0.5, 2.0, 300), np.linspace(-0.5, 2.0, 300))
    feasible = np.all(Z2 @ np.vstack([g1.ravel(), g2.ravel()]) >= 1, axis=0).reshape(g1.shape)

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.3))
    for ax, p in zip(axes, ps):
        Pp = mk.MinNormFeasibility(X2, y2, p=p)              # constraint="margin" is the default
        ref_p = Pp.reference()
        theta = ref_p.w
        ax.contourf(g1, g2, feasible, levels=[0.5, 1.5], colors=["#d9ead3"])
        for z in Z2:
            if z[1] != 0:
                ax.plot([-0.5, 2.0], (1 - z[0] * np.array([-0.5, 2.0])) / z[1], color="gray", lw=0.8)
            else:
                ax.axvline(1 / z[0], color="gray", lw=0.8)
        ax.plot(*lp_sphere(np.linalg.norm(theta, ord=p), p).T, color="C0", label=rf"$\\ell_{{{p:g}}}$ sphere")
        ax.plot(*theta, "o", color="C3", ms=8, label=rf"$\\theta^*$ = ({theta[0]:.3f}, {theta[1]:.3f})")
        active = np.flatnonzero(np.abs(Z2 @ theta - 1) < 1e-6)
        ax.set_xlim(-0.5, 2.0); ax.set_ylim(-0.5, 2.0); ax.set_aspect("equal")
        ax.set_title(f"p = {p:g}: active constraints {active.tolist()}\\n"
                     f"l_p margin 1/||θ*||_p = {1 / np.linalg.norm(theta, ord=p):.3f}", fontsize=10)
        ax.set_xlabel(r"$\\theta_1$"); ax.set_ylabel(r"$\\theta_2$"); ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout(); plt.show()
    print("methods for p = 1.1:", mk.methods(mk.MinNormFeasibility(X2, y2, p=1.1)))
    print("methods for p = 4:  ", mk.methods(mk.MinNormFeasibility(X2, y2, p=4.0)))
    """),
    md(r"""
    The green region is feasible, the grey lines are the three constraint boundaries. The three norms pick
    three different points of the same polygon — two vertices and a point inside a face — hence three different
    classifiers. For $p = 4$ only the CVXPY reference is available.

    **Sparsity in high dimension.** The same effect, in RB's "sparse perceptron" setting (RB §4: features with a
    decaying spectrum, a 50-sparse ground truth; we take $n = 100$, $d = 200$): the sorted magnitudes of
    $\theta^*_p$ for $p = 1 + 1/\ln d$ (RB's choice, after Duchi et al.), $p = 1.5$ and $p = 2$.
    """),
    RB_DATA,
    code("""
    Xs, ys, _, _ = rb_data("sparse", n=100, d=200)
    p_sparse = 1 + 1 / np.log(200)
    fig, ax = plt.subplots(figsize=(7, 4))
    for p in (p_sparse, 1.5, 2.0):
        theta = mk.MinNormFeasibility(Xs, ys, p=p).reference().w
        mag = np.sort(np.abs(theta))[::-1] / np.abs(theta).max()
        ax.semilogy(np.arange(1, 201), mag, label=f"p = {p:.3g}: {np.sum(mag > 1e-2)} entries above 1% of the max")
    ax.set_xlabel("rank of the entry"); ax.set_ylabel(r"$|\\theta^*_i| / \\max_j |\\theta^*_j|$ (sorted)")
    ax.set_title("Minimum-norm separators of RB's sparse data (n = 100, d = 200)")
    ax.set_ylim(1e-6, 1.5); ax.legend(fontsize=8)
    plt.show()
    """),
    md(r"""
    ## 3. The dual, the mirror map and coordinate ascent

    Write $a_i = y_i x_i$ (margin case). With multipliers $\lambda_i \ge 0$, the dual of
    $\min\tfrac12\|\theta\|_p^2$ s.t. $a_i^\top\theta \ge 1$ is (RB §3, eqs. (11)–(12) with $\alpha_i = n\lambda_i$;
    $1/p + 1/q = 1$)
    $$\max_{\lambda \ge 0}\ D(\lambda) = \mathbf 1^\top\lambda - \tfrac12\Big\|\sum_i \lambda_i a_i\Big\|_q^2,
    \qquad \theta(\lambda) = \nabla\psi^*\Big(\sum_i\lambda_i a_i\Big),\quad
    \nabla\psi^*(u) = \|u\|_q^{2-q}\,\operatorname{sign}(u)\,|u|^{q-1}.$$
    $\nabla\psi^*$ is the **mirror map**: it sends the dual vector $u = \sum_i\lambda_i a_i$ to a primal point.
    For $p = 2$ it is the identity. Weak duality $D(\lambda) \le \psi(\theta^*)$ makes the gap
    $\psi(\theta^*) - D(\lambda)$ a measure of progress, and RB's Proposition 1 shows it also controls the primal
    error: $\tfrac{p-1}{2}\|\theta(\lambda) - \theta^*\|_p^2 \le D_\psi(\theta^*, \theta(\lambda))
    \le \psi(\theta^*) - D(\lambda)$.

    **RB Algorithm 1** maximises $D$ one coordinate at a time, with an exact proximal step of size $1/L_i$,
    $L_i = \|a_i\|_q^2/(p-1)$:
    $$\lambda_i \leftarrow \max\Big(0,\ \lambda_i + \frac{1 - a_i^\top\theta}{L_i}\Big),\qquad
    u \leftarrow u + (\lambda_i^{\text{new}} - \lambda_i^{\text{old}})\,a_i,\qquad \theta = \nabla\psi^*(u).$$
    For $p = 2$ this is Hildreth's method for the hard-margin SVM. When the constraints are simple *sets*
    $\theta \in K_i$ (so $x_i = I$) and $p = 2$, the same update reads
    $\theta^+ = \Pi_{K_i}(\theta - \lambda_i)$, $\lambda_i \leftarrow \lambda_i + \theta^+ - \theta$: exactly
    **Dykstra's algorithm** for projecting a point onto $\bigcap_i K_i$ (RB §3; marginkit's
    `ProjectionOntoIntersection` with sets `HalfSpace`, `Hyperplane`, `Ball`, `Box`).

    ## 4. Dykstra's algorithm, step by step

    Project the point $\theta_0 = (2, 0.5)$ onto the intersection of the box $[-1,1]^2$ and the half-plane
    $\theta_1 + 2\theta_2 \le 0$. We code the cyclic version by hand (alternating the two sets, keeping one
    correction $\lambda_i$ per set) and, for contrast, **plain alternating projections** (the same without the
    corrections), and draw every projection step.
    """),
    code("""
    box = mk.Box([-1.0, -1.0], [1.0, 1.0])
    half = mk.HalfSpace([1.0, 2.0], 0.0)                  # {θ : θ1 + 2 θ2 <= 0}
    theta0 = np.array([2.0, 0.5])
    proj = mk.ProjectionOntoIntersection(theta0, [box, half])
    ref_proj = proj.reference()

    def dykstra_path(x, sets, sweeps):
        lam = [np.zeros_like(x) for _ in sets]
        path = [x.copy()]
        for _ in range(sweeps):
            for i, K in enumerate(sets):
                x_new = K.project(x - lam[i])          # project the corrected point
                lam[i] = lam[i] + x_new - x            # update this set's correction
                x = x_new
                path.append(x.copy())
        return np.array(path)

    def alternating_path(x, sets, sweeps):
        path = [x.copy()]
        for _ in range(sweeps):
            for K in sets:
                x = K.project(x)
                path.append(x.copy())
        return np.array(path)

    dyk, alt = dykstra_path(theta0, [box, half], 30), alternating_path(theta0, [box, half], 30)
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    for ax, path, title in [(axes[0], alt, "plain alternating projections"), (axes[1], dyk, "Dykstra's algorithm")]:
        ax.add_patch(plt.Rectangle((-1, -1), 2, 2, color="C0", alpha=0.12, label="box $[-1, 1]^2$"))
        xs = np.linspace(-1.6, 2.4, 2)
        ax.fill_between(xs, -xs / 2, -1.6, color="C1", alpha=0.12, label=r"half-plane $\\theta_1 + 2\\theta_2 \\leq 0$")
        ax.plot(*path[:12].T, "-o", ms=4, color="k", lw=1, label="first 12 projections")
        for k in range(1, 5):
            ax.annotate(str(k), path[k], textcoords="offset points", xytext=(5, 5), fontsize=9)
        ax.plot(*theta0, "s", color="C2", ms=8, label=r"$\\theta_0$")
        ax.plot(*ref_proj.w, "*", color="C3", ms=14, label="projection (CVXPY)")
        ax.plot(*path[-1], "x", color="k", ms=10, mew=2, label=f"limit ({path[-1][0]:.3f}, {path[-1][1]:.3f})")
        ax.set_xlim(-1.6, 2.4); ax.set_ylim(-1.6, 1.2); ax.set_aspect("equal")
        ax.set_xlabel(r"$\\theta_1$"); ax.set_ylabel(r"$\\theta_2$"); ax.set_title(title)
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout(); plt.show()
    print("CVXPY projection:", ref_proj.w, "  distance of the alternating-projection limit to it:",
          f"{np.linalg.norm(alt[-1] - ref_proj.w):.3f}")
    # quoted in the text below: alternating projections stop at (0.6, -0.3), Dykstra reaches the projection
    assert np.allclose(alt[-1], [0.6, -0.3], atol=1e-9) and np.allclose(dyk[-1], ref_proj.w, atol=1e-4)
    """),
    md(r"""
    Plain alternating projections stop at the first feasible point they reach, $(0.6, -0.3)$, which is not the
    closest one: that method solves the *feasibility* problem only. Dykstra's corrections "remember" how far each
    set pushed the iterate and give it back in the next round, so the iteration converges to the projection
    (Dykstra's algorithm is block coordinate ascent on the dual, the link RB §1.1 build on). In the dual picture:
    alternating projections never *decrease* a multiplier, while coordinate ascent can undo an earlier push.

    marginkit's `dykstra` method is RB's randomized version: each iteration is an *epoch* of as many updates as
    there are sets, with indices drawn uniformly. Its limit is the same projection, with a certificate:
    """),
    code("""
    res = proj.solve("dykstra", seed=0)
    print(res)
    print("θ =", res.w, "  certificate:", {k: float(f"{v:.3g}") for k, v in res.certificate.items()})
    """),
    md(r"""
    ## 5. Plain versus accelerated coordinate ascent

    RB's Algorithm 2 applies the accelerated proximal coordinate gradient method (APCG of Lin, Lu & Xiao 2015)
    to the same dual. The guarantees, in expectation over the random coordinates, for the dual gap
    $\psi(\theta^*) - D(\lambda_t)$ after $t$ coordinate steps:

    | method | marginkit | guarantee |
    |---|---|---|
    | randomized coordinate ascent (RB Alg. 1) | `dykstra` | $O(n L_{\max}/t)$ (RB eq. 5) |
    | accelerated coordinate ascent (RB Alg. 2) | `dykstra-accelerated` | $\big(\tfrac{2n}{2n+t}\big)^2\big[\text{gap}(0) + \tfrac12\sum_i L_i\lambda_i^{*2}\big]$ (RB eq. 8, corrected: see below) |
    | stochastic mirror descent on $\frac1{2n}\sum_i(1 - a_i^\top\theta)_+^2$ (baseline) | `mirror-descent` | $O(1/t)$ for the *averaged* iterate (RB Thm 1) |

    One marginkit iteration is one epoch ($n$ steps). We run all three on RB's two settings at a reduced size
    ($n = 200$, $d = 400$ instead of $1000 \times 2000$): the $\ell_2$ perceptron ($p = 2$, spectrum $i^{-3/2}$) and
    the sparse perceptron ($p = 1 + 1/\ln d$, spectrum $1/i$, 50-sparse truth), and record the dual gap
    (against CVXPY) and the training and test mistakes (RB Figures 1–2). The accelerated method returns the
    sequence $\theta(v_t)$ covered by the theorem: RB's Algorithm 2 is APCG (Lin, Lu & Xiao 2015) with $\mu = 0$,
    whose bound is for the sequence $v_t$, while RB's pseudo-code returns $\theta(\alpha_t)$ and their eq. (8), as
    printed, scales its first term in $n$ unlike that bound. The table gives APCG's bound in this lab's notation.
    """),  # noqa: E501 -- a markdown table row cannot be wrapped
    code("""
    methods = ["dykstra", "dykstra-accelerated", "mirror-descent"]
    epochs, n, d = 150, 200, 400
    runs, apcg_bound = {}, {}
    for setting in ("l2", "sparse"):
        Xr, yr, Xr_test, yr_test = rb_data(setting, n=n, d=d)
        p = 2.0 if setting == "l2" else 1 + 1 / np.log(d)
        Pr = mk.MinNormFeasibility(Xr, yr, p=p)
        ref_r = Pr.reference()
        # RB eq. (8) corrected to APCG's bound: E gap(v_t) <= (2n/(2n+t))² [gap(0) + ½ Σ L_i λ*_i²], t in steps
        q = p / (p - 1)
        L = np.linalg.norm(Xr, ord=q, axis=1) ** 2 / (p - 1)
        lam_star = ref_r.dual["lambda"]
        apcg_bound[setting] = ref_r.value + 0.5 * np.sum(L * lam_star**2)
        for m in methods:
            res = Pr.solve(m, max_iter=epochs, tol=0, seed=0, test_set=(Xr_test, yr_test))
            runs[setting, m] = (res.trace, ref_r.value)

    fig, axes = plt.subplots(2, 2, figsize=(13, 8))
    for j, setting in enumerate(("l2", "sparse")):
        for m in methods:
            tr, psi_star = runs[setting, m]
            it = tr["iteration"]; k = it > 0
            axes[0, j].loglog(it[k], np.maximum(psi_star - tr["dual_objective"][k], 1e-12), label=m)
            axes[1, j].semilogy(it, tr["mistakes"] + 0.5, label=f"{m} (train)")
            axes[1, j].semilogy(it, tr["test_error"] * n + 0.5, ":", color=axes[1, j].lines[-1].get_color(),
                                label=f"{m} (test)")
        tr, psi_star = runs[setting, "dykstra"]
        e = np.logspace(0, np.log10(epochs), 30)
        g0 = psi_star - np.interp(1, tr["iteration"], tr["dual_objective"])
        axes[0, j].loglog(e, g0 / e, "k:", lw=1, label=r"guide $1/t$ (RB eq. 5)")
        axes[0, j].loglog(e, apcg_bound[setting] * (2 * n / (2 * n + n * e)) ** 2, "k--", lw=1,
                          label="bound of RB eq. 8 (accelerated)")
        axes[0, j].set_title(f"{setting} setting: dual gap")
        axes[0, j].set_xlabel("epochs t (n coordinate steps each)")
        axes[0, j].set_ylabel(r"$\\psi(\\theta^*) - D(\\lambda_t)$"); axes[0, j].legend(fontsize=8)
        axes[1, j].set_title(f"{setting} setting: mistakes (out of {n})"); axes[1, j].set_xlabel("epochs t")
        axes[1, j].set_ylabel("mistakes + 0.5 (log scale)"); axes[1, j].legend(fontsize=7, ncol=2)
    fig.tight_layout(); plt.show()

    # what the text below reads off the figure, checked on this run
    for setting in ("l2", "sparse"):
        gap = {m: runs[setting, m][1] - runs[setting, m][0]["dual_objective"] for m in methods}
        it = runs[setting, "dykstra-accelerated"][0]["iteration"]
        bound = apcg_bound[setting] * (2 * n / (2 * n + n * it)) ** 2
        assert np.all(gap["dykstra-accelerated"][it > 0] <= bound[it > 0])        # below its (expected) bound
        assert gap["mirror-descent"][-1] > max(gap["dykstra"][-1], gap["dykstra-accelerated"][-1])   # SMD slowest
    """),
    md(r"""
    What to look for:

    * In the dual gap, the accelerated method stays below its bound (dashed: RB eq. 8 with the constants
      computed from the CVXPY multipliers $\lambda^*$; the bound holds in expectation, this is one run). Plain
      coordinate ascent is guaranteed only $1/t$, but with $n < d$ the matrix $XX^\top$ is invertible, the dual is
      strongly concave, and it actually converges *linearly* — on small problems it can overtake the accelerated
      method, which (with $\mu = 0$ in APCG) does not exploit strong concavity (RB §2.4). The theorem
      orders the *guarantees*, not every run.
    * Mirror descent on the squared hinge (primal, last iterate) is the slowest, especially in the sparse
      setting, where its step $1/L_{\max}$ is small.
    * Training mistakes reach zero once $\|\theta_t - \theta^*\|_p < 1/\max_i\|a_i\|_q$ (Hölder:
      $a_i^\top\theta_t \ge 1 - \|a_i\|_q\|\theta_t - \theta^*\|_p$); the test mistakes level off at the
      generalisation error of the max-margin classifier.

    ## Summary

    * The minimum-$\ell_p$-norm point of a feasible set is where the smallest $\ell_p$ ball touches it; $p$
      close to 1 gives sparse solutions.
    * Its dual lives on the multipliers; the mirror map $\nabla\psi^*$ turns dual points into primal ones, and the
      dual gap bounds the primal error (RB Prop. 1).
    * Randomized dual coordinate ascent is Dykstra's algorithm; dropping the corrections gives alternating
      projections, which find a feasible point but not the projection.
    * Acceleration improves the worst-case rate from $1/t$ to $1/t^2$; strong concavity of the dual can make
      the plain method linear.

    ## Exercises

    Solutions: `solutions/04_geometry_of_lp_min_norm_solutions.ipynb`.

    1. **One constraint in closed form.** For $\min\tfrac12\|\theta\|_p^2$ s.t. $a^\top\theta = 1$, use the dual to
       show $\theta^* = \nabla\psi^*(\lambda^* a)$ with $\lambda^* = 1/\|a\|_q^2$, i.e.
       $\theta^*_j = \operatorname{sign}(a_j)|a_j|^{q-1}/\|a\|_q^q$. Check it against CVXPY for
       $p \in \{1.1, 1.5, 2, 4\}$ with $a = (1, 0.5)$. What happens to $\theta^*$ as $p \to 1$ and as $p \to \infty$?
    2. **Proposition 1, numerically.** Step through `dykstra` on the sparse data of section 2 (`plan =
       P.compile("dykstra")`, `plan.iterate(100, seed=0)`; a state has the dual vector `lam` and the mirror point
       `u`). At every epoch compute $\text{gap} = \psi(\theta^*) - D(\lambda)$ and the Bregman divergence
       $D_\psi(\theta^*, \theta(\lambda))$ (hint: `from marginkit.core.mirror import bregman_lp, grad_half_sq_norm`,
       $\theta(\lambda) = \nabla\psi^*(u)$ = `grad_half_sq_norm(u, q)`), and check
       $\tfrac{p-1}2\|\theta - \theta^*\|_p^2 \le D_\psi \le \text{gap}$.
    3. **Back to Lab 1.** For $p = 2$ the margin problem is the hard-margin SVM. On `datasets.sklearn_digits_pair(0, 1)`
       check that `MinNormFeasibility(X, y, p=2)` and `MaxMargin(X, y)` have the same solution, that
       $1/\|\theta^*\| = \gamma^*$ and that $\mathbf 1^\top\lambda^* = \|\theta^*\|^2$ (the multipliers are in
       `reference().dual["lambda"]`).
    4. **Three sets.** Add the ball $\{\|\theta - (0, -1)\| \le 0.8\}$ to section 4. Draw both paths again and count
       how many sweeps each method needs to come within $10^{-6}$ of the CVXPY projection (or to stall).
    5. **Why not $p > 2$?** Try `mk.MinNormFeasibility(X2, y2, p=4).solve("dykstra")` and read the error. Explain
       with the coordinate constants $L_i = \|a_i\|_q^2/(p-1)$ and the strong convexity of $\tfrac12\|\cdot\|_p^2$ why
       the method and its analysis need $p \le 2$.
    """),
    code("""
    # Your work here.
    """),
]

SOLUTIONS = [
    md(r"""
    # Lab 4 — Solutions to the exercises

    Companion of `../04_geometry_of_lp_min_norm.ipynb`.
    """),
    SETUP,
    md(r"""
    ## Exercise 1 — one constraint in closed form

    The dual of $\min\tfrac12\|\theta\|_p^2$ s.t. $a^\top\theta = 1$ is
    $\max_\lambda \lambda - \tfrac12\lambda^2\|a\|_q^2$, so $\lambda^* = 1/\|a\|_q^2$ and
    $\theta^* = \nabla\psi^*(\lambda^* a) = \lambda^*\|a\|_q^{2-q}\operatorname{sign}(a)|a|^{q-1}
    = \operatorname{sign}(a)|a|^{q-1}/\|a\|_q^q$ (check: $a^\top\theta^* = \sum_j|a_j|^q/\|a\|_q^q = 1$).
    """),
    code("""
    a = np.array([1.0, 0.5])
    for p in (1.1, 1.5, 2.0, 4.0):
        q = p / (p - 1)
        closed = np.sign(a) * np.abs(a) ** (q - 1) / np.sum(np.abs(a) ** q)
        cvx = mk.MinNormFeasibility(a[None, :], [1.0], p=p, constraint="interpolation").reference().w
        print(f"p = {p:3g}, q = {q:5.3g}: closed form {closed}, CVXPY {cvx}, "
              f"difference {np.abs(closed - cvx).max():.1e}")
    """),
    md(r"""
    As $p \to 1$, $q \to \infty$ and $|a_j|^{q-1}$ is dominated by the largest $|a_j|$: $\theta^* \to e_1/a_1 = (1, 0)$,
    the sparsest solution. As $p \to \infty$, $q \to 1$ and $\theta^* \to \operatorname{sign}(a)/\|a\|_1 = (2/3, 2/3)$:
    all entries of equal magnitude.

    ## Exercise 2 — Proposition 1, numerically
    """),
    RB_DATA,
    code("""
    from marginkit.core.mirror import bregman_lp, grad_half_sq_norm
    Xs, ys, _, _ = rb_data("sparse", n=100, d=200)
    p = 1 + 1 / np.log(200); q = p / (p - 1)
    P = mk.MinNormFeasibility(Xs, ys, p=p)
    ref = P.reference()
    theta_star, psi_star = ref.w, ref.value
    A = ys[:, None] * Xs
    rows = []
    for st in P.compile("dykstra").iterate(100, seed=0):
        lam = np.maximum(st.lam, 0)
        u = A.T @ lam
        theta = grad_half_sq_norm(u, q)                      # θ(λ) = ∇ψ*(u)
        gap = psi_star - (lam.sum() - 0.5 * np.linalg.norm(u, ord=q) ** 2)
        breg = bregman_lp(theta_star, theta, p)
        dist = 0.5 * (p - 1) * np.linalg.norm(theta - theta_star, ord=p) ** 2
        rows.append((gap, breg, dist))
    rows = np.array(rows)
    tol = 1e-6 * psi_star                                     # accuracy of the CVXPY reference
    print("(p-1)/2 ||θ - θ*||² <= D_ψ(θ*, θ) at every epoch:", bool(np.all(rows[:, 2] <= rows[:, 1] + tol)))
    print("D_ψ(θ*, θ) <= gap at every epoch:               ", bool(np.all(rows[:, 1] <= rows[:, 0] + tol)))
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for k, lab in enumerate(["dual gap", r"$D_\\psi(\\theta^*, \\theta(\\lambda))$",
                             r"$\\frac{p-1}{2}\\|\\theta - \\theta^*\\|_p^2$"]):
        ax.semilogy(np.maximum(rows[:, k], 1e-12), label=lab)
    ax.set_xlabel("epoch"); ax.set_ylabel("value"); ax.legend(); plt.show()
    """),
    md(r"""
    (The state's `u` already equals $\sum_i\lambda_i a_i$; we recompute it from `lam` to make the formula explicit.)

    ## Exercise 3 — back to Lab 1
    """),
    code("""
    from marginkit import datasets
    X, y = datasets.sklearn_digits_pair(0, 1)
    ref_mn = mk.MinNormFeasibility(X, y, p=2).reference()
    ref_mm = mk.MaxMargin(X, y).reference()
    lam = ref_mn.dual["lambda"]
    print(f"||θ* - w*|| = {np.linalg.norm(ref_mn.w - ref_mm.w):.1e}")
    print(f"1/||θ*|| = {1 / np.linalg.norm(ref_mn.w):.8f},  γ* = {ref_mm.margin:.8f}")
    print(f"1ᵀλ* = {lam.sum():.6f},  ||θ*||² = {ref_mn.w @ ref_mn.w:.6f}")
    """),
    md(r"""
    ## Exercise 4 — three sets
    """),
    code("""
    box = mk.Box([-1.0, -1.0], [1.0, 1.0])
    half = mk.HalfSpace([1.0, 2.0], 0.0)
    ball = mk.Ball([0.0, -1.0], 0.8)
    sets = [box, half, ball]
    theta0 = np.array([2.0, 0.5])
    target = mk.ProjectionOntoIntersection(theta0, sets).reference().w

    def run(x, sets, sweeps, corrections):
        lam = [np.zeros_like(x) for _ in sets]
        path, reached = [x.copy()], None
        for s in range(sweeps):
            for i, K in enumerate(sets):
                x_new = K.project(x - lam[i]) if corrections else K.project(x)
                if corrections:
                    lam[i] = lam[i] + x_new - x
                x = x_new
                path.append(x.copy())
            if reached is None and np.linalg.norm(x - target) < 1e-5:
                reached = s + 1
        return np.array(path), reached

    fig, ax = plt.subplots(figsize=(6.5, 5))
    ax.add_patch(plt.Rectangle((-1, -1), 2, 2, color="C0", alpha=0.12))
    ax.add_patch(plt.Circle((0, -1), 0.8, color="C4", alpha=0.12))
    xs = np.linspace(-1.6, 2.4, 2); ax.fill_between(xs, -xs / 2, -2, color="C1", alpha=0.12)
    for corr, name, style in [(True, "Dykstra", "-o"), (False, "alternating projections", "--s")]:
        path, reached = run(theta0, sets, 200, corr)
        when = f"within 1e-5 after {reached} sweeps" if reached else "never within 1e-5"
        ax.plot(*path[:15].T, style, ms=3, lw=1, label=f"{name}: {when}")
        print(f"{name}: limit {path[-1]}, distance to the projection {np.linalg.norm(path[-1] - target):.2e}")
    ax.plot(*target, "*", color="C3", ms=14, label="projection (CVXPY)")
    ax.set_xlim(-1.6, 2.4); ax.set_ylim(-2, 1); ax.set_aspect("equal"); ax.legend(fontsize=8)
    ax.set_xlabel(r"$\\theta_1$"); ax.set_ylabel(r"$\\theta_2$"); plt.show()
    """),
    md(r"""
    Alternating projections never reach the projection: they stop at a feasible point. Dykstra reaches the
    accuracy of the CVXPY reference in a few sweeps (its convergence is linear here).

    ## Exercise 5 — why not $p > 2$?
    """),
    code("""
    X2 = np.array([[1.0, 0.5], [0.0, -5.0], [4 / 3, 0.0]]); y2 = np.array([1.0, -1.0, 1.0])
    try:
        mk.MinNormFeasibility(X2, y2, p=4.0).solve("dykstra")
    except mk.ProblemError as err:
        print("ProblemError:", err)
    """),
    md(r"""
    RB's analysis needs $\psi = \tfrac12\|\cdot\|_p^2$ to be strongly convex with respect to $\|\cdot\|_p$: then
    $\psi^*$ is smooth, the dual is coordinate-wise smooth with constants $L_i = \|a_i\|_q^2/\mu$, and Proposition 1
    turns the dual gap into a primal error. The modulus is $\mu = p - 1$ for $1 < p \le 2$; for $p > 2$ the
    function $\tfrac12\|\cdot\|_p^2$ is *not* strongly convex with respect to $\|\cdot\|_p$ (it is flat to second
    order along directions where many entries are near 0), so $\psi^*$ is not smooth, the step $1/L_i$ is not
    defined, and no rate follows. The CVXPY reference still solves the problem.
    """),
]
