"""The command line: ``marginkit`` (the installed script), ``python -m marginkit`` and ``python -m marginkit.cli`` all
run :func:`marginkit.api.cli.main`."""
from .api.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
