"""What the array-library tests share (tests/test_array_api*.py): the libraries to run on and a separable instance.

array-api-strict is the proof that a plan calls only the array API; torch (CPU) runs where it is installed (CI
installs the CPU wheel this machine keeps on disk), and its absence skips nothing else. On a machine with a GPU,
``MARGINKIT_TEST_TORCH_DEVICE=cuda`` puts the torch arrays on that device (how the suite was run on an H100)."""
import os

import numpy as np


def separable(seed=0, n=150, d=8):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sign(X @ rng.standard_normal(d))
    return X, y


def libraries(xps):
    """``[(name, convert)]``: ``array_api_strict`` and, when installed, ``torch``."""
    libs = [("array_api_strict", xps.asarray)]
    try:
        import torch
        device = os.environ.get("MARGINKIT_TEST_TORCH_DEVICE", "cpu")
        libs.append(("torch", lambda a, **kw: torch.asarray(a, device=device, **kw)))
    except ImportError:   # torch is optional: the strict namespace is the proof
        pass
    return libs
