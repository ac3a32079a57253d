import sys

from cheetah_dashboards.cli import main

sys.exit(main())
