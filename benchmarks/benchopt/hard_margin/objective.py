"""Hard-margin (max-margin) linear separation of separable data, against its certified optimum.

    max_{w, b}  γ(w, b) = min_i y_i(x_iᵀw + b) / ||w||,   equivalently   min ½||w||²  s.t.  y_i(x_iᵀw + b) >= 1

marginkit's ``MaxMargin(X, y, bias)``. benchopt minimises ``value = −γ(w, b)``: the margin is scale-free, so every
iterate has a value (methods that grow ``||w||`` without bound, such as gradient descent on the exponential loss,
converge in margin, not in ``w``) and suboptimality is the margin gap ``γ* − γ``. ``½||w||²`` at the iterate is
no measure: it is only meaningful once the iterate is rescaled onto the constraints, and infinite while it does not
separate the data.
"""
from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.objective import CertifiedObjective


class Objective(CertifiedObjective):
    name = "Hard margin"
    # bias=False: through the origin, the papers' homogeneous setting; bias=True: with a free offset
    parameters = {"bias": [False, True]}
    form = "MaxMargin"
