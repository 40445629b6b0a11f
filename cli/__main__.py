"""``python -m puf.cli``: the ``puf`` command without the console script."""

import sys

from puf.cli import main

sys.exit(main())
