"""What the ellipsoid-separation tests share (tests/test_fista_esp.py, tests/test_array_api_esp.py): a random
instance of two sets of ellipsoids."""
import numpy as np


def random_instance(seed, gap=1.5, d=4, n_c=3, n_d=4, diagonal=False, scale=0.25):
    """``(centres_c, shapes_c, centres_d, shapes_d)``: ``n_c`` and ``n_d`` ellipsoids in ``R^d`` around two clouds of
    centres ``gap`` apart along the first axis; shapes ``(k, d, d)``, or ``(k, d)`` (the diagonal) when ``diagonal``."""
    rng = np.random.default_rng(seed)
    cc = rng.normal(size=(n_c, d)) * 0.5
    cd = rng.normal(size=(n_d, d)) * 0.5 + gap * np.eye(d)[0]
    if diagonal:
        return cc, rng.uniform(0, scale, (n_c, d)), cd, rng.uniform(0, scale, (n_d, d))
    return cc, rng.normal(size=(n_c, d, d)) * scale, cd, rng.normal(size=(n_d, d, d)) * scale
