"""Lab 3: acceleration through the dual (Ji, Srebro & Telgarsky 2021)."""
from _cells import code, md

SETUP = code("""
    import numpy as np
    import matplotlib.pyplot as plt
    import marginkit as mk
    from marginkit import datasets

    plt.rcParams.update({"figure.dpi": 90, "axes.grid": True, "grid.alpha": 0.3})
    np.set_printoptions(precision=4, suppress=True)

    X, y = datasets.sklearn_digits_pair(3, 5)   # 8x8 digits: "3" -> +1, "5" -> -1; rows scaled so max ||x_i|| = 1
    n, d = X.shape
    P = mk.MaxMargin(X, y)                       # min ½||w||²  s.t.  y_i x_iᵀw >= 1   (no bias)
    ref = P.reference()                          # certified CVXPY solution
    gamma_bar = ref.margin                       # γ̄ = 1/||w*||
    Z = -(y[:, None] * X)                        # JST's matrix: rows z_i = -y_i x_i (note the minus)
    print(f"n = {n}, d = {d}, max ||x_i|| = {np.linalg.norm(X, axis=1).max():.3f}, γ̄ = {gamma_bar:.6f}")
    assert (n, d) == (365, 64)                                  # quoted in the text above
""")

CELLS = [
    md(r"""
    # Lab 3 — Acceleration through the dual

    *Course on margins, implicit bias and first-order methods.* Paper: Z. Ji, N. Srebro, M. Telgarsky,
    **Fast margin maximization via dual acceleration**, ICML 2021 ("JST" below; equation and theorem numbers
    are the paper's).

    **Learning goals.** After this lab you can

    1. write the hard-margin problem and its dual over the probability simplex, and explain why every point of
       the simplex certifies an upper bound on the margin;
    2. compile a marginkit method into an *iteration plan* and step through it iterate by iterate;
    3. recognise JST's Algorithm 1 (a momentum method on the primal weights) as **Nesterov-accelerated mirror
       descent on the dual**, by running both forms and checking that they produce the same iterates;
    4. use the momentum vector $g_t$ as a computable certificate of optimality (Theorem 3.1(2));
    5. read the dual iterate $q_t$ as a weighting of the training set that concentrates on the hardest examples
       (the support vectors), and see it on digit images.

    **Prerequisites.** Gradient descent and heavy-ball/Nesterov momentum; Lagrange duality for a quadratic
    program; the softmax function. Lab 1 (max margin five ways) helps but is not required.

    **Runtime.** A few seconds on a laptop. Data: scikit-learn's bundled 8×8 digits (no download).
    """),
    md(r"""
    ## 1. The max-margin problem and its dual

    Training data $(x_i, y_i)$, $i = 1..n$, with $y_i \in \{-1, +1\}$ and $\|x_i\|_2 \le 1$. A linear classifier
    $x \mapsto \operatorname{sign}(x^\top w)$ (no bias) has the normalised margin
    $$\gamma(w) = \min_i \frac{y_i x_i^\top w}{\|w\|}, \qquad \bar\gamma = \max_{\|w\| \le 1} \min_i y_i x_i^\top w .$$
    JST write $z_i = -y_i x_i$ (**with a minus sign**) and stack the $z_i$ as the rows of $Z$, so that
    $y_i x_i^\top w = -(Zw)_i$. Their Section 2 uses the duality
    $$\bar\gamma \;=\; \max_{\|w\|\le 1}\ \min_i\, (-Zw)_i \;=\; \min_{q \in \Delta_n} \|Z^\top q\|_2 ,$$
    where $\Delta_n$ is the probability simplex. **Weak duality is one line:** for any $q \in \Delta_n$ and
    $\|w\| \le 1$, $\min_i (-Zw)_i \le \sum_i q_i (-Zw)_i = -(Z^\top q)^\top w \le \|Z^\top q\|$. So *every*
    weighting $q$ of the training set gives an upper bound on the best margin. Geometrically, the dual asks for
    the point of the convex hull of the $z_i$ closest to the origin; the optimal weights $\bar q$ sit on the
    support vectors, and $-Z^\top \bar q = \bar\gamma\, \bar u$ with $\bar u$ the max-margin direction.

    We use digits **3 (label +1) versus 5 (label −1)**: 365 images of 64 pixels, pixels divided by 16 and every
    row divided by the largest row norm (so $\max_i\|x_i\| = 1$, the assumption of JST §2). The CVXPY reference
    gives the exact $\bar\gamma$.
    """),
    SETUP,
    md(r"""
    `ref.certificate` is computed by marginkit from the CVXPY solution: the primal value $\tfrac12\|w^*\|^2$, the
    dual value at the solver's multipliers, their gap and the largest constraint violation. `P.constants()` adds
    the quantities the papers' bounds use, among them the indices of the **support vectors** (the constraints
    $y_i x_i^\top w^* = 1$ that are active). The CVXPY multipliers $a \ge 0$, normalised to sum to one, are a dual
    optimum $\bar q$ of the simplex problem above.
    """),
    code("""
    consts = P.constants()
    sv = consts["support_vectors"]
    q_bar = ref.dual["a"] / ref.dual["a"].sum()        # a dual optimum on the simplex
    print({k: float(f"{v:.8g}") for k, v in ref.certificate.items() if k != "solver"})
    print(f"{sv.size} support vectors out of {n}; ||Zᵀq̄|| = {np.linalg.norm(Z.T @ q_bar):.6f} = γ̄ = {gamma_bar:.6f}")
    """),
    md(r"""
    ## 2. Compile a plan and step through it

    `P.solve("dual-accelerated")` runs a method to a stop. `P.compile("dual-accelerated")` returns the
    **iteration plan** instead, without running it: `plan.iterate(n)` is a generator of the initial state and
    the next `n` states. A state of this plan has the fields

    | field | meaning |
    |---|---|
    | `t` | iteration counter |
    | `w` | primal iterate $w_t$ |
    | `s` | scores $s = Z w_t$ (JST's sign: $y_i x_i^\top w_t = -R\, s_i$) |
    | `g` | momentum vector (state $t+1$ holds the $g_t$ computed in iteration $t$) |
    | `q` | dual iterate $q_t = \mathrm{softmax}(Z w_t) \in \Delta_n$ |
    | `dual_bound` | best certified upper bound on $\bar\gamma$ seen so far |

    The plan divides the rows by $R = \max_i \|x_i\|$ so that JST's step size 1 is valid; here $R = 1$ already.
    """),
    code("""
    plan = P.compile("dual-accelerated")
    print(type(plan).__name__, "  R =", plan.R)
    T = 2000
    states = list(plan.iterate(T))          # states[t] is the state after t iterations
    print(f"{'t':>5} {'||w_t||':>11} {'margin γ(w_t)':>14} {'upper bound':>12} {'max q_t':>9}")
    for t in (0, 1, 2, 3, 10, 100, 1000, 2000):
        st = states[t]
        print(f"{t:>5} {np.linalg.norm(st.w):>11.4g} {P.margin_of(st.w):>14.6f} {st.dual_bound:>12.6f} "
              f"{st.q.max():>9.4f}")
    print(f"{'':>5} {'':>11} {'γ̄ =':>14} {gamma_bar:>12.6f}")
    # what the text below reads off the table: the margin climbs to γ̄ from below, the bound comes down from above
    assert all(P.margin_of(states[t].w) <= gamma_bar + 1e-9 <= states[t].dual_bound + 2e-9 for t in (100, 1000, T))
    assert states[T].dual_bound < states[100].dual_bound and P.margin_of(states[T].w) > P.margin_of(states[100].w)
    assert states[T].q.max() > 10 / n                                        # q_t concentrates
    """),
    md(r"""
    The margin $\gamma(w_t)$ climbs to $\bar\gamma$ from below while the certified upper bound comes down to it
    from above; $\|w_t\|$ grows fast (we come back to this in the exercises), and the largest dual weight grows
    from $1/n$ as $q_t$ concentrates.

    ## 3. Algorithm 1 in the primal: normalised gradient descent with momentum

    JST's Algorithm 1 (eq. 1.1) for the exponential loss $\mathcal R(w) = \frac1n\sum_i \exp(z_i^\top w)$, with the
    parameters of their main theorem ($\theta_t = 1$, $\beta_t = t/(t+1)$), starting at $w_0 = 0$, $g_{-1} = 0$:
    $$
    q_t = \mathrm{softmax}(Z w_t),\qquad
    g_t = \beta_t\,\big(g_{t-1} + Z^\top q_t\big),\qquad
    w_{t+1} = w_t - \theta_t\,\big(g_t + Z^\top q_t\big).
    $$
    $Z^\top q_t = \nabla\mathcal R(w_t)/\mathcal R(w_t)$ is the *normalised* gradient of the loss, but it is
    computed from the softmax (with the maximum subtracted), never as a ratio: $\mathcal R(w_t)$ underflows to 0
    after a few hundred steps. Here it is in a few lines of NumPy, checked against the plan's states.
    """),
    code("""
    def softmax(s):
        e = np.exp(s - s.max())
        return e / e.sum()

    w, g = np.zeros(d), np.zeros(d)
    W_momentum, G_momentum = [w.copy()], [g.copy()]
    for t in range(T):
        beta = t / (t + 1)
        v = Z.T @ softmax(Z @ w)          # normalised gradient Zᵀq_t
        g = beta * (g + v)                # momentum g_t
        w = w - (g + v)                   # w_{t+1}
        W_momentum.append(w.copy()); G_momentum.append(g.copy())

    err = max(np.linalg.norm(W_momentum[t] - states[t].w) / max(np.linalg.norm(states[t].w), 1) for t in range(T + 1))
    print(f"largest relative difference between our w_t and the plan's: {err:.1e}")
    """),
    md(r"""
    ## 4. The same algorithm in the dual: accelerated entropic mirror descent

    JST derive Algorithm 1 as a method for the **dual** problem $\min_{q\in\Delta_n}\varphi(q)$,
    $\varphi(q) = \tfrac12\|Z^\top q\|^2$ (its minimum is $\bar\gamma^2/2$). It is Nesterov's accelerated method
    with the entropy as mirror map (JST §3, eq. 3.2 and Appendix B), with $\lambda_t = 2/(t+2)$, $\theta_t = 1$,
    $\mu_0 = q_0 = \mathbf 1/n$, $w_0 = 0$:

    | step | dual (mirror-descent) form |
    |---|---|
    | extrapolate | $\nu_t = (1-\lambda_t)\,\mu_t + \lambda_t\, q_t$ |
    | mirror step | $q_{t+1} \propto q_t \odot \exp\!\big(-\tfrac{\theta_t}{\lambda_t}\, Z Z^\top \nu_t\big)$ (note $\nabla\varphi(\nu) = ZZ^\top\nu$) |
    | average | $\mu_{t+1} = (1-\lambda_t)\,\mu_t + \lambda_t\, q_{t+1}$ |
    | primal read-out | $w_{t+1} = w_t - \tfrac{\theta_t}{\lambda_t}\, Z^\top \nu_t$ (eq. 3.2) |

    The mirror step is a *multiplicative* update: in log coordinates it adds $-\frac{\theta_t}{\lambda_t}Z(Z^\top\nu_t)$
    to $\log q_t$, which is exactly $Z(w_{t+1} - w_t)$. By induction $\log q_t = Z w_t + \text{const}$, i.e.
    **$q_t = \mathrm{softmax}(Z w_t)$: the primal iterate is the dual iterate in mirror (logarithmic) coordinates.**
    We therefore implement the mirror step through $s = Zw$ (multiplying a stored $q$ again and again loses its small
    entries to underflow, and an entry that is 0 stays 0).

    The two forms are related by $\beta_t = \lambda_{t-1}(1-\lambda_t)/\lambda_t = t/(t+1)$ and by
    $Z^\top \mu_t = 2 g_t / t$ (JST §3.2, Lemma 3.2, proved in App. C). The next cell runs the dual form and checks both
    identities.
    """),  # noqa: E501 -- a markdown table row cannot be wrapped
    code("""
    q = np.full(n, 1.0 / n)
    mu, w = q.copy(), np.zeros(d)
    W_dual, MU = [w.copy()], [mu.copy()]
    for t in range(T):
        lam = 2.0 / (t + 2)
        nu = (1 - lam) * mu + lam * q          # extrapolation point
        w = w - (Z.T @ nu) / lam               # primal read-out (3.2) = accumulated dual gradients
        q = softmax(Z @ w)                     # mirror step, computed in log coordinates
        mu = (1 - lam) * mu + lam * q          # averaging
        W_dual.append(w.copy()); MU.append(mu.copy())

    err_w = max(np.linalg.norm(W_dual[t] - W_momentum[t]) / max(np.linalg.norm(W_momentum[t]), 1) for t in range(T + 1))
    # G_momentum[t + 1] is the g_t computed in iteration t
    err_mu = max(np.linalg.norm(Z.T @ MU[t] - 2 * G_momentum[t + 1] / t) for t in range(1, T))
    print(f"momentum form vs dual form: max relative |w_t difference| = {err_w:.1e}")
    print(f"identity Zᵀμ_t = 2 g_t / t:  max deviation = {err_mu:.1e}")
    """),
    md(r"""
    Same iterates, to rounding. The dual view explains *why* the method is fast: accelerated mirror descent
    drives the dual gap down like $O(1/t^2)$ (JST Lemma 3.1:
    $\varphi(\mu_t) - \bar\gamma^2/2 \le 4\ln n/(t+1)^2$), and the primal margin inherits the rate.

    ## 5. The momentum is a certificate

    Since $2g_t/t = Z^\top\mu_t$ with $\mu_t \in \Delta_n$, weak duality (section 1) gives an upper bound on the
    max margin *for free*. JST Theorem 3.1(2) brackets $\bar\gamma^2$ for every $t \ge 1$:
    $$
    \frac{4\|g_t\|^2}{t^2} - \frac{8\ln n}{(t+1)^2} \;\le\; \bar\gamma^2 \;\le\; \frac{4\|g_t\|^2}{t^2}.
    $$
    Together with the achieved margin $\gamma(w_t) \le \bar\gamma$ this gives a computable interval around the
    unknown optimum (the margin is negative, below the plot, until the iterate separates the data around
    $t \approx 30$). marginkit's stop rule reports `optimal` only when this interval proves the requested
    tolerance.
    """),
    code("""
    ts = np.arange(1, T)
    upper = np.array([2 * np.linalg.norm(G_momentum[t + 1]) / t for t in ts])          # sqrt of the upper bound
    lower_sq = upper**2 - 8 * np.log(n) / (ts + 1.0) ** 2
    margins = np.array([P.margin_of(W_momentum[t]) for t in ts])

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.semilogx(ts, upper, label=r"upper bound $2\\|g_t\\|/t$ (Thm 3.1(2))")
    ax.semilogx(ts, np.sqrt(np.clip(lower_sq, 0, None)),
                label=r"lower bound $\\sqrt{4\\|g_t\\|^2/t^2 - 8\\ln n/(t+1)^2}$")
    ax.semilogx(ts, margins, label=r"achieved margin $\\gamma(w_t)$")
    ax.axhline(gamma_bar, color="k", ls="--", lw=1, label=r"$\\bar\\gamma$ (CVXPY)")
    ax.set_ylim(0, 3 * gamma_bar)
    ax.set_xlabel("iteration t"); ax.set_ylabel("margin")
    ax.set_title("Certified interval around the max margin (digits 3 vs 5)")
    ax.legend(fontsize=8); plt.show()

    res = P.solve("dual-accelerated", tol=1e-4, max_iter=100_000)
    print(res)
    print({k: float(f"{v:.6g}") for k, v in res.certificate.items()})
    # quoted in the text: the iterate separates the data around t = 30; the run stops certified below 1e-4
    first_positive = int(ts[np.argmax(margins > 0)])
    print("first iteration with a positive margin:", first_positive)
    assert 15 <= first_positive <= 60
    assert res.status == "optimal" and res.certificate["relative_gap_bound"] <= 1e-4
    """),
    md(r"""
    With `tol=1e-4` the run stops by itself with status `optimal`: the certified relative gap
    `relative_gap_bound` is below $10^{-4}$, and this is proven without looking at the CVXPY answer.

    ## 6. Rates: accelerated versus plain mirror descent

    Switching the momentum off ($\beta_t \equiv 0$, equivalently $\lambda_t \equiv 1$ in the dual form) leaves
    entropic mirror descent on the dual, which is **normalised gradient descent** on the primal (plan
    `normalized-gd`, margin gap $O(1/t)$; Ji & Telgarsky 2019). JST Theorem 3.1(1) proves for Algorithm 1
    $$\bar\gamma - \gamma(w_t) \;\le\; \frac{4(1+\ln n)\,(1+2\ln(t+1))}{\bar\gamma\,(t+1)^2}.$$
    On log–log axes a rate $t^{-k}$ is a straight line of slope $-k$; the dotted guide lines have slopes −1 and −2.
    """),
    code("""
    ngd = list(P.compile("normalized-gd").iterate(T))
    gap_acc = np.array([gamma_bar - P.margin_of(W_momentum[t]) for t in ts])
    gap_ngd = np.array([gamma_bar - P.margin_of(ngd[t].w) for t in ts])
    phi_gap = np.array([0.5 * np.sum((Z.T @ MU[t]) ** 2) - gamma_bar**2 / 2 for t in ts])

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    ax = axes[0]
    ax.loglog(ts, gap_acc, label="dual-accelerated (Alg. 1)")
    ax.loglog(ts, gap_ngd, label="normalized-gd (no momentum)")
    ax.loglog(ts, 4 * (1 + np.log(n)) * (1 + 2 * np.log(ts + 1)) / (gamma_bar * (ts + 1.0) ** 2), "C0--", lw=1,
              label="Thm 3.1(1) bound")
    ax.loglog(ts, gap_ngd[9] * 10 / ts, "k:", lw=1, label=r"guide $\\propto 1/t$")
    ax.loglog(ts, gap_acc[99] * 100**2 / ts**2, "k-.", lw=1, label=r"guide $\\propto 1/t^2$")
    ax.set_ylim(1e-6, 1); ax.set_xlabel("iteration t"); ax.set_ylabel(r"margin gap $\\bar\\gamma - \\gamma(w_t)$")
    ax.set_title("Primal: margin gap"); ax.legend(fontsize=8)
    ax = axes[1]
    ax.loglog(ts, phi_gap, label=r"$\\varphi(\\mu_t) - \\bar\\gamma^2/2$")
    ax.loglog(ts, 4 * np.log(n) / (ts + 1.0) ** 2, "C0--", lw=1, label=r"Lemma 3.1: $4\\ln n/(t+1)^2$")
    ax.set_xlabel("iteration t"); ax.set_ylabel("dual objective gap")
    ax.set_title(r"Dual: $\\varphi(q) = \\frac{1}{2}\\|Z^\\top q\\|^2$ at the averages $\\mu_t$")
    ax.legend(fontsize=8); fig.tight_layout(); plt.show()

    slope = np.log(gap_acc[1999 - 1] / gap_acc[199 - 1]) / np.log(10)
    print(f"log-log slope of the accelerated margin gap between t = 200 and t = 2000: {slope:.2f}")
    print(f"gap at t = 2000: accelerated {gap_acc[-1]:.2e}, normalized-gd {gap_ngd[-1]:.2e}")
    # quoted in the text below: slopes near -2 and -1, the bound about two orders of magnitude above the gap
    slope_ngd = np.log(gap_ngd[1999 - 1] / gap_ngd[199 - 1]) / np.log(10)
    bound = 4 * (1 + np.log(n)) * (1 + 2 * np.log(ts + 1)) / (gamma_bar * (ts + 1.0) ** 2)
    ratio = np.median(bound[99:] / gap_acc[99:])
    print(f"slope of normalized-gd: {slope_ngd:.2f};  median bound / gap on t >= 100: {ratio:.0f}")
    assert -2.5 < slope < -1.6 and -1.3 < slope_ngd < -0.7 and 30 <= ratio <= 1000
    """),
    md(r"""
    The theorem's bound is valid but loose (about two orders of magnitude above the observed gap); the *slope*
    is the informative part: close to −2 for Algorithm 1, close to −1 for normalised GD.

    ## 7. $q_t$ puts its weight on the hardest examples

    $q_{t,i} \propto \exp(-y_i x_i^\top w_t)$: an example with a smaller margin gets exponentially more weight,
    and the exponent is multiplied by $\|w_t\|$, which grows like $t^2$. So $q_t$ quickly forgets the easy
    examples and concentrates on the **support vectors** of the max-margin classifier. Two summaries:

    * the mass that $q_t$ puts on the support vectors found by CVXPY;
    * the effective number of examples $\exp(H(q_t))$, with $H$ the Shannon entropy ($=n$ for uniform weights).
    """),
    code("""
    def effective_n(q):
        p = q[q > 0]
        return float(np.exp(-(p * np.log(p)).sum()))

    t_all = np.arange(T + 1)
    mass_sv = np.array([states[t].q[sv].sum() for t in t_all])
    eff = np.array([effective_n(states[t].q) for t in t_all])
    assert mass_sv[100] > 0.5 and mass_sv[T] > 0.9 and eff[T] < sv.size   # by t = 100 the weight is on the SVs

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    axes[0].semilogx(t_all[1:], mass_sv[1:]); axes[0].axhline(1, color="k", lw=0.8)
    axes[0].set_xlabel("iteration t"); axes[0].set_ylabel("mass of $q_t$ on the support vectors")
    axes[0].set_title(f"{sv.size} support vectors out of n = {n}")
    axes[1].loglog(t_all[1:], eff[1:], label=r"$\\exp(H(q_t))$")
    axes[1].axhline(sv.size, color="k", ls="--", lw=1, label="number of support vectors")
    axes[1].axhline(effective_n(q_bar), color="C3", ls=":", lw=1.5, label=r"$\\exp(H(\\bar q))$ of the CVXPY dual")
    axes[1].set_xlabel("iteration t"); axes[1].set_ylabel("effective number of examples"); axes[1].legend(fontsize=8)
    fig.tight_layout(); plt.show()
    print(f"||q_T - q̄||_1 = {np.abs(states[T].q - q_bar).sum():.3f}   (q̄: CVXPY multipliers normalised)")
    """),
    md(r"""
    Now the pictures: for several iterations $t$, the eight training images with the largest weight $q_{t,i}$,
    titled with their label and weight (green frame: a support vector). At $t = 0$ the weights are uniform and
    the "top eight" are arbitrary; by $t = 100$ the weight sits on ambiguous 3s and 5s. The last row shows the
    CVXPY dual weights $\bar q$, and the last panel the max-margin weight vector $w^*$ as an 8×8 image
    (red pixels vote for "3", blue ones for "5").
    """),
    code("""
    rows = [0, 10, 100, T]
    fig, axes = plt.subplots(len(rows) + 1, 9, figsize=(12, 7.5))
    for r, t in enumerate(rows + ["cvxpy"]):
        weights = q_bar if t == "cvxpy" else states[t].q
        top = np.argsort(-weights, kind="stable")[:8]
        axes[r, 0].axis("off")
        axes[r, 0].text(0.5, 0.5, "CVXPY $\\\\bar q$" if t == "cvxpy" else f"$q_t$, t = {t}",
                        ha="center", va="center", fontsize=11)
        for k, i in enumerate(top):
            ax = axes[r, k + 1]
            ax.imshow(X[i].reshape(8, 8), cmap="gray_r")
            ax.set_xticks([]); ax.set_yticks([]); ax.grid(False)
            ax.set_title(f"{'3' if y[i] > 0 else '5'}: {weights[i]:.3f}", fontsize=9)
            for side in ax.spines.values():
                side.set_edgecolor("green" if i in sv else "lightgray"); side.set_linewidth(2.5)
    fig.suptitle("Training images with the largest dual weights (green frame = support vector)")
    fig.tight_layout(); plt.show()

    fig, ax = plt.subplots(figsize=(3.2, 3.2))
    lim = np.abs(ref.w).max()
    im = ax.imshow(ref.w.reshape(8, 8), cmap="RdBu_r", vmin=-lim, vmax=lim); ax.grid(False)
    ax.set_xticks([]); ax.set_yticks([]); ax.set_title("max-margin $w^*$ (red: '3', blue: '5')", fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.046); plt.show()
    """),
    md(r"""
    ## Summary

    * The hard-margin problem has a dual over the simplex; any weighting of the examples certifies an upper bound.
    * JST's Algorithm 1 is momentum on the primal **and** Nesterov-accelerated entropic mirror descent on the
      dual: the primal iterate is the dual iterate in logarithmic coordinates, $q_t = \mathrm{softmax}(Zw_t)$.
    * Acceleration in the dual turns into an $\tilde O(1/t^2)$ margin rate (Thm 3.1(1)), against $O(1/t)$ without
      momentum; the momentum $g_t$ itself certifies how far from optimal we are (Thm 3.1(2)).
    * The dual weights concentrate on the hardest examples, which are the support vectors.

    ## Exercises

    Solutions: `solutions/03_acceleration_through_the_dual_solutions.ipynb`.

    1. **Norm growth.** The norm bounds of JST §3 (Lemma C.7 of the appendix) state
       $\bar\gamma\, t(t+3)/4 \le \|w_t\| \le t(t+3)/4$ when $\max_i\|x_i\| \le 1$. Check both inequalities on the
       states of section 2 for $t \le 2000$ and plot $\|w_t\|/(t(t+3)/4)$. Why does this growth force us to compute
       $q_t$ with the maximum subtracted? Find the first iteration at which `np.exp(Z @ w)` is zero for *every*
       example, so that the naive formula `np.exp(Z @ w) / np.exp(Z @ w).sum()` returns `nan`.
    2. **Momentum off.** Set $\beta_t \equiv 0$ in the momentum loop of section 3 and check that you reproduce the
       states of the plan `normalized-gd` iterate by iterate. Which choice of $\lambda_t$ in the dual form of
       section 4 gives the same method? Verify it numerically.
    3. **Sampling from the dual.** JST's Algorithm 2 (plan `dual-accelerated-stochastic`) replaces $Z^\top q_t$
       by one row $z_{i_t}$ with $i_t$ drawn from $q_t$. Step through it for 2000 iterations with 5 seeds
       (`plan.iterate(2000, seed=s)`), and compare the margin gaps at $t = 2000$ with Algorithm 1. Count how often
       each example is drawn (hint: the sampled index is the row whose weight in the state's `c` vector was just
       increased, or simply recompute it by sampling from `st.q`): what fraction of the draws are support vectors?
    4. **Non-separable data.** Flip 5% of the labels with `datasets.noisy_labels(y, 0.05, seed=0)`. What status
       and certificate does the CVXPY reference return? Step through Algorithm 1 and check that the certificate
       of Theorem 3.1(2) becomes $4\|g_t\|^2/t^2 \le 8\ln n/(t+1)^2$, i.e. $\|g_t\|$ stays bounded. What does
       `P.solve("dual-accelerated")` report?
    5. **Averaged versus last dual iterate.** Lemma 3.1 bounds the dual gap of the *averages* $\mu_t$. Plot
       $\varphi(\mu_t) - \bar\gamma^2/2$ and $\varphi(q_t) - \bar\gamma^2/2$ on log–log axes. Which one converges
       faster here? Is the last iterate covered by the theorem?
    """),
    code("""
    # Your work here.
    """),
]

SOLUTIONS = [
    md(r"""
    # Lab 3 — Solutions to the exercises

    Companion of `../03_acceleration_through_the_dual.ipynb`. The first cell rebuilds the data, the reference and
    2000 states of Algorithm 1 exactly as in the lab.
    """),
    SETUP,
    code("""
    T = 2000
    states = list(P.compile("dual-accelerated").iterate(T))
    sv = P.constants()["support_vectors"]

    def softmax(s):
        e = np.exp(s - s.max())
        return e / e.sum()
    """),
    md(r"""
    ## Exercise 1 — norm growth

    The upper bound holds because each step adds at most $1/\lambda_t$ times a convex combination of rows of norm
    $\le 1$; the lower bound because $\|Z^\top\nu\| \ge \bar\gamma$ for every $\nu$ in the simplex (weak duality)
    and all these steps point into the same half-space. So $\|w_t\|$ grows like $t^2$, and once the data are
    separated the scores $(Zw_t)_i = -y_i x_i^\top w_t$ are all negative and grow like $-\gamma\,\|w_t\|$: the
    exponentials $\exp((Zw_t)_i)$ *underflow*. In float64, $e^{-745}$ is already 0. When that happens for every
    example the naive weights are $0/0$. Subtracting the maximum score first keeps the largest exponential equal
    to 1, so the softmax is exact at every $t$.
    """),
    code("""
    t = np.arange(1, T + 1)
    norms = np.array([np.linalg.norm(states[k].w) for k in t])
    ok_upper = np.all(norms <= t * (t + 3) / 4 + 1e-9)
    ok_lower = np.all(norms >= gamma_bar * t * (t + 3) / 4 - 1e-9)
    print(f"upper bound holds: {ok_upper};  lower bound holds: {ok_lower}")

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.semilogx(t, norms / (t * (t + 3) / 4), label=r"$\\|w_t\\| / (t(t+3)/4)$")
    ax.axhline(gamma_bar, color="k", ls="--", lw=1, label=r"$\\bar\\gamma$ (lower limit)")
    ax.axhline(1, color="k", lw=1, label="1 (upper limit)")
    ax.set_xlabel("iteration t"); ax.set_ylabel("ratio"); ax.legend(); plt.show()

    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        naive = [np.exp(Z @ states[k].w) for k in t]
    first_zero = next((k for k, e in zip(t, naive) if e.sum() == 0), None)
    print("first t where every exp(Z w) underflows to 0 (naive q = 0/0):", first_zero)
    print("smallest y_i x_iᵀw_t at that t:", float(-(Z @ states[first_zero].w).max()))
    print("softmax at that t is fine: sum =", softmax(Z @ states[first_zero].w).sum())
    """),
    md(r"""
    The naive formula breaks after a few hundred iterations (all weights 0, so $q = 0/0$ = NaN) although nothing
    is wrong with the method.

    ## Exercise 2 — momentum off

    With $\beta_t = 0$ the update is $w_{t+1} = w_t - Z^\top q_t$: normalised gradient descent with step 1. In the
    dual form, $\lambda_t \equiv 1$ gives $\nu_t = q_t$ and $w_{t+1} = w_t - Z^\top q_t$: plain entropic mirror
    descent (dual averaging) on $\varphi$, with no extrapolation and no averaging.
    """),
    code("""
    ngd = list(P.compile("normalized-gd").iterate(T))
    w = np.zeros(d); err_primal = 0.0
    for k in range(T):
        w = w - Z.T @ softmax(Z @ w)                      # beta_t = 0
        err_primal = max(err_primal, np.linalg.norm(w - ngd[k + 1].w) / np.linalg.norm(w))
    q, mu, w2 = np.full(n, 1 / n), np.full(n, 1 / n), np.zeros(d); err_dual = 0.0
    for k in range(T):
        lam = 1.0
        nu = (1 - lam) * mu + lam * q
        w2 = w2 - Z.T @ nu / lam
        q = softmax(Z @ w2); mu = (1 - lam) * mu + lam * q
        err_dual = max(err_dual, np.linalg.norm(w2 - ngd[k + 1].w) / np.linalg.norm(w2))
    print(f"beta = 0 momentum loop vs normalized-gd plan: {err_primal:.1e}")
    print(f"lambda = 1 dual form vs normalized-gd plan:   {err_dual:.1e}")
    """),
    md(r"""
    ## Exercise 3 — sampling from the dual (Algorithm 2)

    The plan's state keeps `s = Z w`, so the distribution of the next draw is `softmax(st.s)`; we re-draw from it
    with our own generator to count which examples are sampled (the plan draws its own index internally with the
    Gumbel-max trick, which samples from the same distribution).
    """),
    code("""
    rng = np.random.default_rng(0)
    gaps, draws = [], np.zeros(n)
    for seed in range(5):
        st_list = list(P.compile("dual-accelerated-stochastic").iterate(T, seed=seed))
        gaps.append(gamma_bar - P.margin_of(st_list[-1].w))
        for st in st_list[1::10]:                       # every 10th state is enough for the histogram
            draws[rng.choice(n, p=softmax(st.s))] += 1
    acc_gap = gamma_bar - P.margin_of(states[T].w)
    print("Algorithm 2 margin gap at t = 2000 over 5 seeds:", ", ".join(f"{g:.2e}" for g in gaps))
    print(f"Algorithm 1 margin gap at t = 2000: {acc_gap:.2e}")
    print(f"fraction of draws on the {sv.size} support vectors: {draws[sv].sum() / draws.sum():.2f}")
    """),
    md(r"""
    Each step of Algorithm 2 uses one example instead of the full $Z^\top q_t$, so at equal *iterations* it is
    behind Algorithm 1 (no theorem covers its momentum variant); as $q_t$ concentrates, almost every draw is a
    support vector, which is why sampling from $q_t$ works much better than uniform sampling.

    ## Exercise 4 — non-separable data
    """),
    code("""
    y_noisy = datasets.noisy_labels(y, 0.05, seed=0)
    P_noisy = mk.MaxMargin(X, y_noisy)
    ref_noisy = P_noisy.reference()
    print("reference status:", ref_noisy.status, "  hull distance:", f"{ref_noisy.certificate['hull_distance']:.1e}")

    st_noisy = list(P_noisy.compile("dual-accelerated").iterate(T))
    ks = np.arange(1, T)
    lhs = np.array([4 * np.sum(st_noisy[k + 1].g ** 2) / k**2 for k in ks])
    rhs = 8 * np.log(n) / (ks + 1.0) ** 2
    print("4||g_t||²/t² <= 8 ln n/(t+1)² at every t:", bool(np.all(lhs <= rhs + 1e-12)))
    print("max ||g_t||:", max(np.linalg.norm(st.g) for st in st_noisy))
    print(P_noisy.solve("dual-accelerated", max_iter=2000))
    """),
    md(r"""
    CVXPY reports `infeasible`, certified by a point of the simplex with $\|Z^\top q\| \approx 0$ (the convex hulls
    of the two classes intersect). With $\bar\gamma = 0$ Theorem 3.1(2) forces $\|g_t\| \le \sqrt{2\ln n}\,t/(t+1)$:
    the momentum stays bounded, and marginkit never reports a positive margin (status `infeasible` once the
    certificate is small enough, `user_limit` otherwise).

    ## Exercise 5 — averaged versus last dual iterate
    """),
    code("""
    Zs = Z
    mu, q = np.full(n, 1 / n), np.full(n, 1 / n)
    phi_mu, phi_q = [], []
    for k in range(T):
        lam = 2.0 / (k + 2)
        mu = (1 - lam) * mu + lam * states[k + 1].q       # μ_{t+1} from the plan's q_{t+1}
        phi_mu.append(0.5 * np.sum((Zs.T @ mu) ** 2) - gamma_bar**2 / 2)
        phi_q.append(0.5 * np.sum((Zs.T @ states[k + 1].q) ** 2) - gamma_bar**2 / 2)
    tt = np.arange(1, T + 1)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.loglog(tt, phi_mu, label=r"averages $\\mu_t$ (Lemma 3.1)")
    ax.loglog(tt, np.abs(phi_q), label=r"last iterate $q_t$")
    ax.loglog(tt, 4 * np.log(n) / (tt + 1.0) ** 2, "k--", lw=1, label=r"$4\\ln n/(t+1)^2$")
    ax.set_xlabel("iteration t"); ax.set_ylabel(r"$\\varphi(\\cdot) - \\bar\\gamma^2/2$"); ax.legend(); plt.show()
    """),
    md(r"""
    Both converge here, and the last iterate is even a little ahead on this data set, but it oscillates, and only
    the averages are covered by Lemma 3.1: the guarantees of accelerated methods are for the averaged sequence,
    and the last iterate of an accelerated method need not decrease monotonically.
    """),
]
