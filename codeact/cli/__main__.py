"""``python -m codeact.cli``: the ``codeact`` command."""

import sys

from codeact.cli import main

sys.exit(main())
