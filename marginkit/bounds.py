"""The papers' proven bounds evaluated with certified constants: :func:`check` (a run against its method's theorem)
and the per-record bounds the cross-validation table and the plots use. The public name of :mod:`marginkit.api.bounds`,
where each bound and the papers' typos it resolves are documented."""
from .api.bounds import *  # noqa: F403 -- the public module re-exports the api module's names
from .api.bounds import __all__  # noqa: F401
