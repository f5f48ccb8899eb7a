"""``python -m marginkit``: the command line (:mod:`marginkit.api.cli`)."""
import sys

from .api.cli import main

sys.exit(main())
