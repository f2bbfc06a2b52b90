"""``python -m codeact``: the ``codeact`` command."""

import sys

from codeact.cli import main

sys.exit(main())
