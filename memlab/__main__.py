"""`python -m memlab` runs the memlab command."""

import sys

from memlab.cli import main

sys.exit(main())
