"""``python -m hot_envs.cli`` is ``hot-envs``."""

import sys

from hot_envs.cli.commands import main

sys.exit(main())
